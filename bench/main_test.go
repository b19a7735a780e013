package bench

import (
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

func TestMain(m *testing.M) { testbin.Main(m) }

package bench

import (
	"os"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

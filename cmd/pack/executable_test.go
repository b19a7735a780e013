package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// TestCheckExecutable: the machine's own build passes as its platform and
// is refused as every other, in the other's format or CPU.
func TestCheckExecutable(t *testing.T) {
	bin := testbin.Path(t)
	for _, tg := range targets {
		err := checkExecutable(bin, tg)
		if tg.goos == runtime.GOOS && tg.goarch == runtime.GOARCH {
			if err != nil {
				t.Errorf("as %s: %v", tg, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "the binary built for "+tg.String()) {
			t.Errorf("as %s: %v, want it refused", tg, err)
		}
	}
	if err := checkExecutable("testdata/package.json", targets[0]); err == nil {
		t.Errorf("a JSON file passed as a linux executable")
	}
}

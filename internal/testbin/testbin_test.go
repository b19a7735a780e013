package testbin

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryMatchesTestBuild checks that the binary is race-instrumented
// exactly when the test process is, by asking the toolchain how the binary
// was built.
func TestBinaryMatchesTestBuild(t *testing.T) {
	bin := Path(t)
	t.Cleanup(Cleanup)
	info, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, info)
	}
	got := strings.Contains(string(info), "-race=true")
	if got != Race() {
		t.Fatalf("binary race-built = %v, test process race = %v\n%s", got, Race(), info)
	}
}

// Package testbin builds the real continuity binary once per test process,
// so end-to-end tests drive exactly what hosts start.
//
// Under `go test -race` the binary is built with -race too (the race build
// tag is set by the toolchain itself, see race.go): the e2e suite then
// exercises a race-instrumented plugin, and a data race in the process
// prints a non-JSON report on its stderr and exits non-zero, which the host
// double records as a violation.
package testbin

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	once sync.Once
	path string
	err  error
	out  []byte
)

// Path returns the path of a freshly built continuity binary. The build
// happens once per test process (the Go build cache makes it quick) into a
// directory removed when the process exits via Cleanup.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(build)
	if err != nil {
		t.Fatalf("building continuity: %v\n%s", err, out)
	}
	return path
}

// Race reports whether Path builds a race-instrumented binary.
func Race() bool { return raceBuild }

// buildArgs is the go command line that builds the binary at dst.
func buildArgs(dst string) []string {
	args := []string{"build"}
	if raceBuild {
		args = append(args, "-race")
	}
	return append(args, "-o", dst, "./cmd/continuity")
}

func build() {
	var gomod []byte
	gomod, err = exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	dir, derr := os.MkdirTemp("", "continuity-bin-")
	if derr != nil {
		err = derr
		return
	}
	path = filepath.Join(dir, "continuity")
	cmd := exec.Command("go", buildArgs(path)...)
	cmd.Dir = root
	out, err = cmd.CombinedOutput()
}

// Cleanup removes the built binary's directory; call it from TestMain after
// m.Run.
func Cleanup() {
	if path != "" {
		os.RemoveAll(filepath.Dir(path))
	}
}

// Main is the TestMain of a package that uses Path: it runs the tests and
// then removes the built binary.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Run runs the binary with args, the test process's environment plus env
// and an empty stdin, and returns its exit code and combined output; only
// a binary that cannot be started fails the test.
func Run(t testing.TB, env []string, args ...string) (code int, output string) {
	t.Helper()
	cmd := exec.Command(Path(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

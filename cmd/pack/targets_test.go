package main

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// TestEveryPlatformCrossCompiles checks, without compiling, that each
// packaged platform can still build cmd/continuity with CGO off (the full
// builds are scripts/pack-pi's; the e2e test builds this machine's).
func TestEveryPlatformCrossCompiles(t *testing.T) {
	repo, err := moduleRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if err := checkTarget(context.Background(), repo, tg); err != nil {
			t.Errorf("%v", err)
		}
	}
	// A platform the pure-Go SQLite does not support must fail the check,
	// naming the package that does not build.
	err = checkTarget(context.Background(), repo, target{platform: "plan9", arch: "ia32", goos: "plan9", goarch: "386"})
	if err == nil || !strings.Contains(err.Error(), "modernc.org/") {
		t.Fatalf("checking plan9/386: %v, want the packages that do not build named", err)
	}
}

func TestSelectTargets(t *testing.T) {
	all, err := selectTargets("all")
	if err != nil || len(all) != 6 {
		t.Fatalf("all: %v %v", all, err)
	}
	two, err := selectTargets("darwin-arm64, win32-x64")
	if err != nil || len(two) != 2 || two[0].goos != "darwin" || two[1].executable() != "continuity.exe" {
		t.Fatalf("list: %+v %v", two, err)
	}
	if _, err := selectTargets("linux-x86"); err == nil || !strings.Contains(err.Error(), `unknown platform "linux-x86"`) {
		t.Fatalf("unknown platform: %v", err)
	}
	host, err := selectTargets("host")
	if err != nil {
		t.Fatalf("host: %v", err)
	}
	if host[0].goos != runtime.GOOS || host[0].goarch != runtime.GOARCH {
		t.Fatalf("host is %s/%s, selected %+v", runtime.GOOS, runtime.GOARCH, host[0])
	}
}

// TestNodeNames: the package names use Node's process.platform and
// process.arch, which locate.ts puts together, not Go's names.
func TestNodeNames(t *testing.T) {
	want := []string{"linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"}
	for i, tg := range targets {
		if tg.packageName() != "@continuity-dev/continuity-"+want[i] {
			t.Errorf("target %d is %s", i, tg.packageName())
		}
	}
}

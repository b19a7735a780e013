package main

import (
	"fmt"
	"runtime"
	"strings"
)

// target is one platform the extension ships a binary for, named twice:
// as Node names it (process.platform, process.arch — what npm's os and cpu
// fields and the extension's locate.ts use) and as Go builds it.
type target struct {
	platform, arch string
	goos, goarch   string
}

// targets are the platforms the binary is built for: the npm platform
// packages and the release archives.
var targets = []target{
	{platform: "linux", arch: "x64", goos: "linux", goarch: "amd64"},
	{platform: "linux", arch: "arm64", goos: "linux", goarch: "arm64"},
	{platform: "darwin", arch: "x64", goos: "darwin", goarch: "amd64"},
	{platform: "darwin", arch: "arm64", goos: "darwin", goarch: "arm64"},
	{platform: "win32", arch: "x64", goos: "windows", goarch: "amd64"},
	{platform: "win32", arch: "arm64", goos: "windows", goarch: "arm64"},
}

// platformScope prefixes every platform package's name. locate.ts looks
// for exactly `${platformScope}${process.platform}-${process.arch}`.
const platformScope = "@continuity-dev/continuity-"

func (t target) String() string { return t.platform + "-" + t.arch }

// packageName is the npm package that carries this target's binary.
func (t target) packageName() string { return platformScope + t.String() }

// executable is the binary's file name inside the package's bin/.
func (t target) executable() string {
	if t.goos == "windows" {
		return "continuity.exe"
	}
	return "continuity"
}

// selectTargets reads -platforms: "all", "host" (the machine running this
// command), or a comma-separated list of names such as linux-x64.
func selectTargets(spec string) ([]target, error) {
	switch spec {
	case "all":
		return targets, nil
	case "host":
		for _, t := range targets {
			if t.goos == runtime.GOOS && t.goarch == runtime.GOARCH {
				return []target{t}, nil
			}
		}
		return nil, fmt.Errorf("this machine (%s/%s) is not one of the packaged platforms (%s)", runtime.GOOS, runtime.GOARCH, names(targets))
	}
	var out []target
	for _, name := range strings.Split(spec, ",") {
		t, ok := targetNamed(strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("unknown platform %q in -platforms (known: %s, all, host)", name, names(targets))
		}
		out = append(out, t)
	}
	return out, nil
}

func targetNamed(name string) (target, bool) {
	for _, t := range targets {
		if t.String() == name {
			return t, true
		}
	}
	return target{}, false
}

func names(ts []target) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// readmeUpstream is the upstream README's quick start names; the tests put
// the supplier double's address in its place.
const readmeUpstream = "https://api.openai.com"

// quickStep is one client's quick start in README: the commands the
// end-to-end tests of configure, run and doctor run, with only a test's
// addresses added (quickArgs).
type quickStep struct{ configure, proxy, undo, run, doctor string }

var quickStart = map[string]quickStep{
	"codex": {
		configure: "continuity configure codex",
		proxy:     "continuity proxy --upstream " + readmeUpstream,
		undo:      "continuity configure --undo codex",
		run:       "continuity run --upstream " + readmeUpstream + " codex",
		doctor:    "continuity doctor",
	},
	"opencode": {
		configure: "continuity configure opencode",
		proxy:     "continuity proxy --upstream " + readmeUpstream,
		undo:      "continuity configure --undo opencode",
		run:       "continuity run --upstream " + readmeUpstream + " opencode",
	},
	"pi": {
		configure: "continuity configure pi",
		proxy:     "continuity proxy --upstream " + readmeUpstream,
		undo:      "continuity configure --undo pi",
	},
}

// TestReadmeQuickStart: the continuity commands in README's "## Quick
// start" are exactly the ones the end-to-end tests run.
func TestReadmeQuickStart(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Quick start\n")
	if !ok {
		t.Fatal(`README has no "## Quick start" section`)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var inReadme []string
	inBlock := false
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock
		case inBlock && strings.HasPrefix(line, "continuity "):
			cmd, _, _ := strings.Cut(line, " #")
			inReadme = append(inReadme, strings.TrimSpace(cmd))
		}
	}
	var tested []string
	for _, s := range quickStart {
		for _, c := range []string{s.configure, s.proxy, s.undo, s.run, s.doctor} {
			if c != "" && !slices.Contains(tested, c) {
				tested = append(tested, c)
			}
		}
	}
	for _, c := range inReadme {
		if !slices.Contains(tested, c) {
			t.Errorf("README's quick start shows %q, which no test runs", c)
		}
	}
	for _, c := range tested {
		if !slices.Contains(inReadme, c) {
			t.Errorf("the tests run %q, which README's quick start does not show", c)
		}
	}
}

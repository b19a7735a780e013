package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadmeInstallCommands: every command in README.md's "Install"
// section is one the install tests run (installCommands), and the tests
// run no install command README does not show.
func TestReadmeInstallCommands(t *testing.T) {
	repo, err := moduleRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Install\n")
	if !ok {
		t.Fatal(`README.md has no "## Install" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var shown []string
	for i, block := range strings.Split(section, "```sh\n") {
		if i == 0 {
			continue
		}
		code, _, ok := strings.Cut(block, "```")
		if !ok {
			t.Fatalf("an unclosed code block in README's Install section: %q", block)
		}
		for _, line := range strings.Split(code, "\n") {
			if line, _, _ = strings.Cut(line, " #"); strings.TrimSpace(line) != "" {
				shown = append(shown, strings.TrimSpace(line))
			}
		}
	}
	for _, c := range shown {
		if !slices.Contains(installCommands, c) {
			t.Errorf("README's Install section shows %q, which no install test runs", c)
		}
	}
	for _, c := range installCommands {
		if !slices.Contains(shown, c) {
			t.Errorf("the install tests run %q, which README's Install section does not show", c)
		}
	}
}

package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProductImportsNoTesting holds the product binary free of test code:
// no package it links may be testing or under testing/. Test helpers
// belong in _test.go files or in packages only tests import (as
// fixtures/host/hosttest is for the host double `continuity demo` uses).
func TestProductImportsNoTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var linked, importers []string
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), " ")
		if isTesting(pkg) {
			linked = append(linked, pkg)
		}
		for imp := range strings.FieldsSeq(imports) {
			if isTesting(imp) && !isTesting(pkg) {
				importers = append(importers, pkg+" imports "+imp)
			}
		}
	}
	if len(linked) == 0 {
		return
	}
	t.Fatalf("cmd/continuity links %s through:\n  %s\nmove the testing code of those packages into _test.go files or a package only tests import",
		strings.Join(linked, ", "), strings.Join(importers, "\n  "))
}

func isTesting(pkg string) bool { return pkg == "testing" || strings.HasPrefix(pkg, "testing/") }

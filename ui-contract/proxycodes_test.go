package uicontract_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// proxyCodesTable returns the rows of docs/protocol.md §11.1's table:
// code → status.
func proxyCodesTable(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### 11.1 ")
	if !ok {
		t.Fatal("docs/protocol.md has no §11.1")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([A-Z][A-Z0-9_]*)` \\| ([0-9]{3}) \\| [^|\\n]+ \\|$")
	out := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(sec, -1) {
		if _, dup := out[m[1]]; dup {
			t.Errorf("§11.1 lists %s twice", m[1])
		}
		out[m[1]] = m[2]
	}
	return out
}

// TestProxyCodesTable: docs/protocol.md §11.1's table of the proxy's codes
// names exactly the codes diag's registry files under codes/proxy, each
// with the status that schemas/codes/proxy.json's description starts
// with; with TestRegistryMatchesContract, registry, schema and docs agree
// in both directions.
func TestProxyCodesTable(t *testing.T) {
	table := proxyCodesTable(t)
	schema := listedCodes(t, diag.ListProxy)
	registered := map[string]bool{}
	for _, e := range diag.Registry() {
		if e.List != diag.ListProxy {
			continue
		}
		registered[e.Code] = true
		status, ok := table[e.Code]
		switch {
		case !ok:
			t.Errorf("proxy code %s is not in docs/protocol.md §11.1", e.Code)
		case !strings.HasPrefix(schema[e.Code], status):
			t.Errorf("%s: §11.1 says %s, codes/proxy says %q", e.Code, status, schema[e.Code])
		}
	}
	if len(table) == 0 {
		t.Fatal("§11.1 lists no codes")
	}
	for c := range table {
		if !registered[c] {
			t.Errorf("docs/protocol.md §11.1 lists %s, which diag's registry does not hold for codes/proxy", c)
		}
	}
}

// TestProxyCodesDeclaredOnlyInDiag: package proxy names its codes through
// diag's constants, never as string literals, so a code it answers cannot
// bypass the registry.
func TestProxyCodesDeclaredOnlyInDiag(t *testing.T) {
	codes := map[string]bool{}
	for _, e := range diag.Registry() {
		if e.List == diag.ListProxy {
			codes[`"`+e.Code+`"`] = true
		}
	}
	files, err := filepath.Glob("../proxy/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no proxy sources: %v", err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && codes[lit.Value] {
				t.Errorf("%s spells the code %s instead of using diag's constant", path, lit.Value)
			}
			return true
		})
	}
}

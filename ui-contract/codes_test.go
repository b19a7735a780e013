package uicontract_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// diagCodes returns the COPILOT_CONTINUATION_* string constants declared in
// diag/diag.go, read with go/parser so that the list cannot drift from the
// code that reports them.
func diagCodes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../diag/diag.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for _, v := range vs.Values {
			lit, ok := v.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && strings.HasPrefix(s, "COPILOT_CONTINUATION_") {
				out = append(out, s)
			}
		}
		return true
	})
	sort.Strings(out)
	return out
}

// copilotCodes returns the codes listed in schemas/codes/copilot.json with
// their descriptions.
func copilotCodes(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("schemas/codes/copilot.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		OneOf []struct {
			Const       string `json:"const"`
			Description string `json:"description"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range s.OneOf {
		if _, dup := out[c.Const]; dup {
			t.Errorf("codes/copilot lists %s twice", c.Const)
		}
		out[c.Const] = c.Description
	}
	return out
}

// TestCopilotCodesMatchDiag checks both directions: every diag constant is
// in codes/copilot with a one-line description, and every listed code is a
// diag constant.
func TestCopilotCodesMatchDiag(t *testing.T) {
	inDiag := diagCodes(t)
	if len(inDiag) == 0 {
		t.Fatal("found no COPILOT_CONTINUATION_* constants in diag/diag.go")
	}
	listed := copilotCodes(t)
	seen := map[string]bool{}
	for _, c := range inDiag {
		seen[c] = true
		d, ok := listed[c]
		switch {
		case !ok:
			t.Errorf("diag.%s is not in codes/copilot.json", c)
		case d == "" || strings.Contains(d, "\n"):
			t.Errorf("%s: want a one-line description, got %q", c, d)
		}
	}
	for c := range listed {
		if !seen[c] {
			t.Errorf("codes/copilot.json lists %s, which diag/diag.go does not declare", c)
		}
	}
}

// TestCopilotCodesHaveTexts checks that every code has a user-facing
// summary, error.<CODE>, in every locale.
func TestCopilotCodesHaveTexts(t *testing.T) {
	for locale, texts := range loadTexts(t) {
		for c := range copilotCodes(t) {
			if texts["error."+c] == "" {
				t.Errorf("%s: no text error.%s", locale, c)
			}
		}
	}
}

package uicontract_test

import (
	"cmp"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// listedCodes returns the codes a schemas/codes file lists as const
// alternatives (oneOf or anyOf), with their descriptions.
func listedCodes(t *testing.T, list string) map[string]string {
	t.Helper()
	b, err := os.ReadFile("schemas/" + list + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OneOf []codeEntry `json:"oneOf"`
		AnyOf []codeEntry `json:"anyOf"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range append(doc.OneOf, doc.AnyOf...) {
		if c.Const == "" {
			continue // the $ref that includes another list
		}
		if _, dup := out[c.Const]; dup {
			t.Errorf("%s lists %s twice", list, c.Const)
		}
		out[c.Const] = c.Description
	}
	return out
}

type codeEntry struct {
	Const       string `json:"const"`
	Description string `json:"description"`
}

// wireErrorCodes returns the data.code constants wire/error.json ties to a
// JSON-RPC code.
func wireErrorCodes(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("schemas/wire/error.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AllOf []struct {
			If struct {
				Properties struct {
					Data struct {
						Properties struct {
							Code struct {
								Const string `json:"const"`
							} `json:"code"`
						} `json:"properties"`
					} `json:"data"`
				} `json:"properties"`
			} `json:"if"`
		} `json:"allOf"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range doc.AllOf {
		if code := c.If.Properties.Data.Properties.Code.Const; code != "" {
			out[code] = "tied to a JSON-RPC code"
		}
	}
	return out
}

// TestRegistryMatchesContract checks diag's registry against the wire
// contract in both directions: every registered code is listed, with a
// one-line description, where its entry says; every code a list names is
// registered for that list; Remote convention codes, which no schema
// lists, are named in docs/protocol.md. (TestProxyCodesTable holds the
// proxy's list to docs/protocol.md §11.1 as well.)
func TestRegistryMatchesContract(t *testing.T) {
	lists := map[string]map[string]string{
		diag.ListCopilot:    listedCodes(t, diag.ListCopilot),
		diag.ListContinuity: listedCodes(t, diag.ListContinuity),
		diag.ListBoundary:   listedCodes(t, diag.ListBoundary),
		diag.ListWireError:  wireErrorCodes(t),
		diag.ListProxy:      listedCodes(t, diag.ListProxy),
	}
	protocol, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]string{}
	for _, e := range diag.Registry() {
		if _, dup := registered[e.Code]; dup {
			t.Errorf("the registry holds %s twice", e.Code)
		}
		registered[e.Code] = e.List
		if e.List == diag.ListRemote {
			if !strings.Contains(string(protocol), "`"+e.Code+"`") {
				t.Errorf("%s code %s is not named in docs/protocol.md", cmp.Or(e.List, "Remote"), e.Code)
			}
			continue
		}
		d, ok := lists[e.List][e.Code]
		switch {
		case !ok:
			t.Errorf("%s is registered for %s, which does not list it", e.Code, e.List)
		case d == "" || strings.Contains(d, "\n"):
			t.Errorf("%s: want a one-line description in %s, got %q", e.Code, e.List, d)
		}
	}
	for list, codes := range lists {
		if len(codes) == 0 {
			t.Errorf("%s lists no codes", list)
		}
		for c := range codes {
			if registered[c] != list {
				t.Errorf("%s lists %s, which diag's registry does not hold for it", list, c)
			}
		}
	}
}

// TestRegistryCodesValidate checks that each CONTINUITY_* code is accepted
// by codes/continuity (which includes codes/boundary) and that the schema
// still refuses a code nobody declared.
func TestRegistryCodesValidate(t *testing.T) {
	for _, e := range diag.Registry() {
		if e.List != diag.ListContinuity && e.List != diag.ListBoundary {
			continue
		}
		if err := uicontract.Validate("codes/continuity", []byte(`"`+e.Code+`"`)); err != nil {
			t.Errorf("%s: %v", e.Code, err)
		}
	}
	if uicontract.Validate("codes/continuity", []byte(`"CONTINUITY_BOGUS"`)) == nil {
		t.Fatal("an unknown code validates")
	}
}

// TestCopilotCodesHaveTexts checks that every code has a user-facing
// summary, error.<CODE>, in every locale.
func TestCopilotCodesHaveTexts(t *testing.T) {
	for locale, texts := range loadTexts(t) {
		for c := range listedCodes(t, diag.ListCopilot) {
			if texts["error."+c] == "" {
				t.Errorf("%s: no text error.%s", locale, c)
			}
		}
	}
}

// TestCodesDeclaredOnlyInDiag walks the module's non-test Go files and
// fails on a string literal that is a whole diagnostic code outside diag:
// a code typed anywhere else would bypass the registry.
func TestCodesDeclaredOnlyInDiag(t *testing.T) {
	code := regexp.MustCompile(`^"(COPILOT_CONTINUATION|CONTINUITY)_[A-Z0-9_]+"$`)
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "diag", "node_modules", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && code.MatchString(lit.Value) {
				t.Errorf("%s declares %s outside diag's registry", path, lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package uicontract_test

import (
	"encoding/json"
	"os"
	"testing"
)

// enumOf reads the enum at a JSON pointer-like path of a schema file.
func enumOf(t *testing.T, file string, path ...string) []string {
	t.Helper()
	b, err := os.ReadFile("schemas/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		v = v.(map[string]any)[p]
	}
	var out []string
	for _, e := range v.(map[string]any)["enum"].([]any) {
		out = append(out, e.(string))
	}
	return out
}

// codesOf lists the const entries of a codes/*.json file.
func codesOf(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile("schemas/codes/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AnyOf []struct {
			Const string `json:"const"`
		} `json:"anyOf"`
		OneOf []struct {
			Const string `json:"const"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range append(doc.AnyOf, doc.OneOf...) {
		if c.Const != "" {
			out = append(out, c.Const)
		}
	}
	return out
}

// TestContinuityTextsCoverCodesAndReasons (issue 16): every CONTINUITY_*
// code, every continuation reason and every boundary decision and reason
// has a text in every locale, and the transition card, banner, lineage,
// handoff inspector and return offer have theirs.
func TestContinuityTextsCoverCodesAndReasons(t *testing.T) {
	var keys []string
	for _, f := range []string{"continuity.json", "boundary.json"} {
		codes := codesOf(t, f)
		if len(codes) == 0 {
			t.Fatalf("no codes in codes/%s", f)
		}
		for _, c := range codes {
			keys = append(keys, "error."+c)
		}
	}
	for _, r := range enumOf(t, "continuation/manifest.json", "$defs", "reason") {
		keys = append(keys, "continuation.reason."+r)
	}
	for _, d := range enumOf(t, "view/BoundaryDecision.json", "properties", "decision") {
		keys = append(keys, "boundary.decision."+d)
	}
	for _, r := range enumOf(t, "view/BoundaryDecision.json", "properties", "reason") {
		keys = append(keys, "boundary.reason."+r)
	}
	keys = append(keys, "continuation.card.title", "continuation.card.open", "continuation.card.inspect",
		"continuation.banner.title", "continuation.banner.back", "continuation.banner.view",
		"continuation.lineage.title", "continuation.handoff.title", "continuation.handoff.omitted",
		"continuation.return.title", "continuation.return.choice.open", "continuation.return.choice.branch")
	for locale, texts := range loadTexts(t) {
		for _, k := range keys {
			if texts[k] == "" {
				t.Errorf("%s has no text %s", locale, k)
			}
		}
	}
}

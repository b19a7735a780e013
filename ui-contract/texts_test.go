package uicontract_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// placeholder matches {name} in a text; views fill these from typed fields.
var placeholder = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// fillable are the placeholders a client can fill from a ComposerNotice
// (see its schema description) or from the continuation views' typed
// fields (a title, a count of sources, an event id); a text asking for
// anything else could not be rendered.
var fillable = map[string]bool{"items": true, "codeUnits": true, "strippedIds": true, "compactionId": true, "code": true,
	"title": true, "count": true, "eventId": true}

// loadTexts reads every texts/<locale>.json.
func loadTexts(t *testing.T) map[string]map[string]string {
	t.Helper()
	files, err := filepath.Glob("texts/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no texts: %v", err)
	}
	out := map[string]map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := uicontract.Validate("common/texts", b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		m := map[string]string{}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = m
	}
	for _, want := range []string{"en", "zh-CN"} {
		if out[want] == nil {
			t.Fatalf("no texts/%s.json", want)
		}
	}
	return out
}

// placeholders returns the sorted placeholder names of one text.
func placeholders(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// TestLocalesAgree checks that every locale has exactly the English keys and,
// per key, the same placeholders, all of which a client can fill.
func TestLocalesAgree(t *testing.T) {
	all := loadTexts(t)
	en := all["en"]
	for locale, texts := range all {
		for k := range en {
			if _, ok := texts[k]; !ok {
				t.Errorf("%s lacks %s", locale, k)
			}
		}
		for k, v := range texts {
			ev, ok := en[k]
			if !ok {
				t.Errorf("%s has %s, which en lacks", locale, k)
				continue
			}
			got, want := strings.Join(placeholders(v), ","), strings.Join(placeholders(ev), ",")
			if got != want {
				t.Errorf("%s %s: placeholders {%s}, en has {%s}", locale, k, got, want)
			}
			for _, p := range placeholders(v) {
				if !fillable[p] {
					t.Errorf("%s %s: placeholder {%s} cannot be filled from a notice", locale, k, p)
				}
			}
		}
	}
}

// TestChineseIsTranslated guards against English left in zh-CN.json: every
// text has Han characters and differs from the English one.
func TestChineseIsTranslated(t *testing.T) {
	all := loadTexts(t)
	for k, v := range all["zh-CN"] {
		han := strings.IndexFunc(v, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
		if !han || v == all["en"][k] {
			t.Errorf("zh-CN %s is not translated: %q", k, v)
		}
	}
}

// TestDisclosureSaysWhatIsLost checks the loss disclosure's substance in
// English: what is omitted, what is kept, that answers are not undone and
// that it applies to future turns.
func TestDisclosureSaysWhatIsLost(t *testing.T) {
	en := loadTexts(t)["en"]
	for _, k := range []string{"offer.disclosure", "accountSwitch.disclosure"} {
		d := strings.ToLower(en[k])
		for _, must := range []string{"encrypted reasoning", "earlier turns", "omit", "visible", "does not undo answers"} {
			if !strings.Contains(d, must) {
				t.Errorf("%s does not say %q", k, must)
			}
		}
	}
	if d := en["offer.disclosure"]; !strings.Contains(d, "tool calls") || !strings.Contains(d, "future turns") {
		t.Errorf("offer.disclosure must name kept tool calls and future turns: %q", d)
	}
}

// keyFields are the members of views and values that hold text keys.
var keyFields = map[string]bool{"textKey": true, "disclosureKey": true, "guidanceKey": true, "disclosure": true}

// collectKeys gathers text keys from a decoded document.
func collectKeys(v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if s, ok := c.(string); ok && keyFields[k] {
				out[s] = true
			}
			collectKeys(c, out)
		}
	case []any:
		for _, c := range x {
			collectKeys(c, out)
		}
	}
}

// TestReferencedKeysExist checks that the text keys used by valid examples,
// and the keys clients derive by convention (notice.compaction.<state>),
// exist in the English texts (and so, by TestLocalesAgree, everywhere).
func TestReferencedKeysExist(t *testing.T) {
	en := loadTexts(t)["en"]
	used := map[string]bool{}
	for _, rows := range loadExamples(t) {
		for _, e := range rows {
			if !e.Valid {
				continue
			}
			var v any
			if err := json.Unmarshal(e.Doc, &v); err != nil {
				t.Fatal(err)
			}
			collectKeys(v, used)
		}
	}
	for _, s := range []string{"running", "completed", "failed", "cancelled", "blocked", "unknown"} {
		used["notice.compaction."+s] = true
	}
	for k := range used {
		if _, ok := en[k]; !ok {
			t.Errorf("text key %s is used but not defined", k)
		}
	}
}

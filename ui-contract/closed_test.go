package uicontract_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"
)

// The views, events and Remote values the user sees must carry ids, counts,
// states and text keys only. Rather than trusting examples to try every way
// text could sneak in, TestViewsAreClosed proves it from the schemas: every
// object they declare is closed (additionalProperties false), every member
// has a declared shape, and every string is bounded by a pattern, enum or
// const and a length. A free-text member cannot be added without failing.
var closedRoots = []string{
	"view/ComposerNotice",
	"view/ReplayOffer",
	"view/AccountSwitchPrompt",
	"event/continuity.notice.args",
	"event/githubCopilotSessionContinuation.changed.args",
	"remote/continuity/accountSwitch.args",
	"remote/continuity/accountSwitch.value",
	"remote/continuity/notices.args",
	"remote/continuity/notices.value",
}

// rawSchemas reads schema files from disk on demand, by name.
type rawSchemas map[string]any

func (r rawSchemas) get(t *testing.T, name string) any {
	if v, ok := r[name]; ok {
		return v
	}
	b, err := os.ReadFile("schemas/" + name + ".json")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r[name] = v
	return v
}

// resolve follows a $ref written in schema file from: a relative file, a
// JSON pointer fragment, or both.
func (r rawSchemas) resolve(t *testing.T, from, ref string) (string, any) {
	file, frag, _ := strings.Cut(ref, "#")
	name := from
	if file != "" {
		name = strings.TrimSuffix(path.Join(path.Dir(from), file), ".json")
	}
	node := r.get(t, name)
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := node.(map[string]any)
		if !ok {
			t.Fatalf("%s: $ref %s does not resolve", from, ref)
		}
		node = m[tok]
	}
	if node == nil {
		t.Fatalf("%s: $ref %s does not resolve", from, ref)
	}
	return name, node
}

// types returns the schema's declared type(s).
func types(m map[string]any) map[string]bool {
	out := map[string]bool{}
	switch x := m["type"].(type) {
	case string:
		out[x] = true
	case []any:
		for _, s := range x {
			out[s.(string)] = true
		}
	}
	return out
}

// closedWalker checks one root and everything it reaches.
type closedWalker struct {
	t    *testing.T
	raw  rawSchemas
	seen map[string]bool
	errs []string
}

func (w *closedWalker) fail(at, format string, args ...any) {
	w.errs = append(w.errs, at+": "+fmt.Sprintf(format, args...))
}

func (w *closedWalker) walk(file, at string, node any) {
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		f, target := w.raw.resolve(w.t, file, ref)
		key := f + "#" + ref
		if !w.seen[key] {
			w.seen[key] = true
			w.walk(f, at+"→"+ref, target)
		}
	}
	ty := types(m)
	_, isConst := m["const"]
	_, isEnum := m["enum"]
	if ty["object"] {
		if ap, ok := m["additionalProperties"].(bool); !ok || ap {
			w.fail(at, "object is not closed (additionalProperties false)")
		}
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			w.member(file, at+"/"+name, p)
		}
	}
	if ty["string"] && !isConst && !isEnum {
		if _, ok := m["pattern"]; !ok {
			w.fail(at, "string without pattern, enum or const")
		}
		if _, ok := m["maxLength"]; !ok {
			w.fail(at, "string without maxLength")
		}
	}
	for _, k := range []string{"items", "additionalProperties", "if", "then", "else", "contains"} {
		w.walk(file, at+"/"+k, m[k])
	}
	for _, k := range []string{"prefixItems", "allOf", "anyOf", "oneOf"} {
		list, _ := m[k].([]any)
		for i, s := range list {
			w.walk(file, fmt.Sprintf("%s/%s/%d", at, k, i), s)
		}
	}
}

// member checks one declared property: false (forbidden) is fine, true or
// an unconstrained schema would admit anything.
func (w *closedWalker) member(file, at string, p any) {
	switch x := p.(type) {
	case bool:
		if x {
			w.fail(at, "member admits any value")
		}
	case map[string]any:
		_, hasRef := x["$ref"]
		_, hasType := x["type"]
		_, hasConst := x["const"]
		_, hasEnum := x["enum"]
		if !hasRef && !hasType && !hasConst && !hasEnum {
			w.fail(at, "member without a declared shape")
		}
		w.walk(file, at, x)
	}
}

func TestViewsAreClosed(t *testing.T) {
	raw := rawSchemas{}
	for _, root := range closedRoots {
		w := &closedWalker{t: t, raw: raw, seen: map[string]bool{}}
		w.walk(root, root, raw.get(t, root))
		for _, e := range w.errs {
			t.Error(e)
		}
	}
}

// TestClosedWalkerCatchesText shows the walker is not vacuous: a notice
// schema with a free-text member fails it.
func TestClosedWalkerCatchesText(t *testing.T) {
	raw := rawSchemas{}
	var notice map[string]any
	b, err := json.Marshal(raw.get(t, "view/ComposerNotice"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &notice); err != nil {
		t.Fatal(err)
	}
	notice["properties"].(map[string]any)["text"] = map[string]any{"type": "string"}
	raw["view/ComposerNotice"] = notice
	w := &closedWalker{t: t, raw: raw, seen: map[string]bool{}}
	w.walk("view/ComposerNotice", "view/ComposerNotice", notice)
	if len(w.errs) == 0 {
		t.Fatal("a free-text member passed the closed-schema check")
	}
}

package jsonscan

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestMembersLocatesValuesAndValidates(t *testing.T) {
	doc := []byte(` { "jsonrpc" : "2.0", "id":7,"method":"llm\/payload",` + "\t" + `"params":{"a":[1,{"b":"\u00e9"}],"payload":{"input":[]}} } `)
	for _, trusted := range []bool{false, true} {
		s := &Scanner{B: doc, Trusted: trusted}
		ms, err := s.Members(nil)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"jsonrpc": `"2.0"`, "id": `7`, "method": `"llm\/payload"`,
			"params": `{"a":[1,{"b":"\u00e9"}],"payload":{"input":[]}}`}
		if len(ms) != len(want) {
			t.Fatalf("%d members", len(ms))
		}
		for name, v := range want {
			found := false
			for _, m := range ms {
				if s.NameIs(m, name) {
					found = true
					if got := string(m.Value(doc)); got != v {
						t.Fatalf("%s = %s, want %s", name, got, v)
					}
				}
			}
			if !found {
				t.Fatalf("no member %s", name)
			}
		}
	}
}

func TestMembersRejects(t *testing.T) {
	for _, c := range []struct {
		doc       string
		notObject bool
	}{
		{`{"a":1,}`, false},
		{`{"a":1} x`, false},
		{`{"a":"\x"}`, false},
		{`{"a":tru}`, false},
		{``, false},
		{`[1,2]`, true},
		{`"s"`, true},
		{`42`, true},
	} {
		_, err := (&Scanner{B: []byte(c.doc)}).Members(nil)
		var se *SyntaxError
		switch {
		case c.notObject && !errors.As(err, new(ErrNotObject)):
			t.Errorf("%q: %v, want ErrNotObject", c.doc, err)
		case !c.notObject && !errors.As(err, &se):
			t.Errorf("%q: %v, want a syntax error", c.doc, err)
		}
		if json.Valid([]byte(c.doc)) != c.notObject {
			t.Errorf("%q: the test's expectation disagrees with encoding/json", c.doc)
		}
	}
	// Stricter than encoding/json, which accepts invalid UTF-8 in strings.
	if _, err := (&Scanner{B: []byte("{\"a\":\"\xff\"}")}).Members(nil); err == nil {
		t.Error("invalid UTF-8 in a string must be a syntax error")
	}
}

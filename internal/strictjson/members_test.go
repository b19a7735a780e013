package strictjson_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/internal/strictjson"
	"github.com/continuity-dev/continuity/jsonscan"
)

// TestDuplicateIsCheckAtTheTop: a reader that scans only the top-level
// members (Duplicate) and one that reads the whole document (Check, and
// so every schema check) apply one rule to the top level — the same names
// are one name, the same first duplicate is named — so the method table's
// readers cannot disagree about which params have a member twice.
func TestDuplicateIsCheckAtTheTop(t *testing.T) {
	for _, c := range []struct {
		doc, dup string // dup: the name refused, "" for none
	}{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":1,"\u0061":2}`, "a"},
		{`{"b":0,"a":1,"b":2,"a":3}`, "b"},
		{`{"a\ud800":1,"a\udbff":2}`, ""},
		{`{"a\ud800":1,"a\ud800":2}`, "a\xed\xa0\x80"},
		{`{"a\ufffd":1,"a\ud800":2}`, ""},
		{`{"x":{"c":1,"c":2}}`, ""}, // deeper members are the reader's of that member
	} {
		sc := jsonscan.Scanner{B: []byte(c.doc), Trusted: true}
		ms, err := sc.Members(nil)
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		name, found := strictjson.Duplicate(&sc, ms)
		if found != (c.dup != "") || name != c.dup {
			t.Errorf("Duplicate(%s) = %q, %v; want %q", c.doc, name, found, c.dup)
		}
		var se *strictjson.Error
		err = strictjson.Check([]byte(c.doc))
		atTop := errors.As(err, &se) && errors.Is(err, strictjson.ErrDuplicate) && strings.Count(se.Pointer, "/") == 1
		if atTop != found {
			t.Errorf("Check(%s) = %v; Duplicate found %v", c.doc, err, found)
		}
	}
}

package strictjson_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/internal/strictjson"
	"github.com/continuity-dev/continuity/jsonscan"
)

func TestCheckRefuses(t *testing.T) {
	for _, c := range []struct {
		doc     string
		reason  error
		pointer string
	}{
		{`{"a":1,"a":2}`, strictjson.ErrDuplicate, "/a"},
		{`{"a":1,"\u0061":2}`, strictjson.ErrDuplicate, "/a"},
		{`{"x":[{"b":{"c":1,"c":1}}]}`, strictjson.ErrDuplicate, "/x/0/b/c"},
		{`{"a":1,}`, strictjson.ErrSyntax, ""},
		{`{"a":"` + "\xff" + `"}`, strictjson.ErrSyntax, "/a"},
		{`{"a":1} x`, strictjson.ErrSyntax, ""},
		{``, strictjson.ErrSyntax, ""},
		{strings.Repeat("[", strictjson.MaxDepth+1), strictjson.ErrDepth, strings.Repeat("/0", strictjson.MaxDepth)},
	} {
		err := strictjson.Check([]byte(c.doc))
		var se *strictjson.Error
		if !errors.As(err, &se) || !errors.Is(err, c.reason) {
			t.Errorf("%.40q: %v, want %v", c.doc, err, c.reason)
			continue
		}
		if se.Pointer != c.pointer {
			t.Errorf("%.40q: pointer %.60q, want %.60q", c.doc, se.Pointer, c.pointer)
		}
	}
}

func TestCheckAccepts(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `"s"`, `0`, ` {"a":[1,-2.5e-300,true,false,null,{"b":"\ud800"}]} `,
		`{"a\ud800":1,"a\udbff":2,"a\ufffd":3}`, // distinct code-unit names
		`[1.7976931348623157e308,-9223372036854775808,` + strings.Repeat("1", 64) + `,1e0000999]`,
	} {
		if err := strictjson.Check([]byte(doc)); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
	}
}

func TestDecodeKeepsLoneSurrogates(t *testing.T) {
	b, err := strictjson.Decode([]byte(`{"ids":["a\ud800","a\udbff","a\ufffd","\ud83d\ude00"],"n":12.50}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"ids": []any{"a\xed\xa0\x80", "a\xed\xaf\xbf", "a\uFFFD", "😀"},
		"n":   json.Number("12.50"),
	}
	if got := b.Value(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

// A long number literal reaches a validator as a bounded stand-in with the
// value's sign, integer-ness and order against short bounds; short ones
// are kept as written. Nothing is refused for its spelling.
func TestNumbersForValidators(t *testing.T) {
	huge := "1" + strings.Repeat("0", 100)
	for _, c := range []struct{ lit, want string }{
		{"12.50", "12.50"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"1e999", "1e999"},
		{"1e1000001", huge},
		{"-1E+99999999999999999999", "-" + huge},
		{strings.Repeat("9", 65), huge},
		{strings.Repeat("9", 65) + ".5", huge + ".5"},
		{"5" + strings.Repeat("0", 63) + ".0", "5" + strings.Repeat("0", 63)},
		{"1" + strings.Repeat("0", 70) + "e-70", "1"},
		{"0." + strings.Repeat("0", 70) + "5e71", "5"},
		{"0." + strings.Repeat("0", 70), "0"},
		{"-0e1000001", "0"},
		{"1E-1000", "0." + strings.Repeat("0", 20) + "1"},
		{"-1e-1000001", "-0." + strings.Repeat("0", 20) + "1"},
		{"3." + strings.Repeat("14159", 20), "3.14159141591415914159" + "1"},
		{"3.25" + strings.Repeat("0", 70), "3.25"},
		{"7" + strings.Repeat("0", 70) + "e-69", "70"},
	} {
		b, err := strictjson.Decode([]byte(c.lit))
		if err != nil {
			t.Fatalf("%.40s: %v", c.lit, err)
		}
		if got := b.Value().(json.Number); string(got) != c.want {
			t.Errorf("%.40s: %s, want %s", c.lit, got, c.want)
		}
	}
}

// The stand-in is computed in one pass over the spelling: 16 Mi digits
// take milliseconds, where an exact rational took minutes.
func TestLongNumberIsLinear(t *testing.T) {
	huge := []byte(`{"seq":` + strings.Repeat("7", 16<<20) + `}`)
	start := time.Now()
	b, err := strictjson.Decode(huge)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Value().(map[string]any)["seq"].(json.Number); len(got) != 101 {
		t.Fatalf("stand-in %.40s", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("16 Mi digits took %v", d)
	}
}

func TestErrorClipsLongNames(t *testing.T) {
	name := strings.Repeat("é", 100)
	err := strictjson.Check([]byte(`{"` + name + `":1,"` + name + `":2}`))
	var se *strictjson.Error
	if !errors.As(err, &se) || len(se.Pointer) > 80 || !strings.HasSuffix(se.Pointer, "…") {
		t.Fatalf("got %v", err)
	}
}

func TestDuplicate(t *testing.T) {
	for _, c := range []struct {
		doc, name string
		found     bool
	}{
		{`{"a":1,"b":{"a":1}}`, "", false},
		{`{"a":1,"b":2,"\u0061":3}`, "a", true},
		{`{"a\ud800":1,"a\udbff":2}`, "", false},
		{`{"payload":{"x":1,"x":2},"y":1}`, "", false}, // only this level
	} {
		sc := jsonscan.Scanner{B: []byte(c.doc), Trusted: true}
		ms, err := sc.Members(nil)
		if err != nil {
			t.Fatal(err)
		}
		if name, found := strictjson.Duplicate(&sc, ms); name != c.name || found != c.found {
			t.Errorf("%s: %q %v", c.doc, name, found)
		}
	}
}

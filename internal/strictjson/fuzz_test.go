package strictjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/internal/strictjson"
)

// FuzzCheck: on any input Check and Decode agree, never panic, and what
// they accept is JSON that encoding/json accepts too, with no duplicated
// member anywhere. Seeds hold the shapes of issue 18: huge numbers, lone
// surrogates and duplicated members.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"seq":1e1000001}`, `{"a":"a\ud800","b":"a\udbff"}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`,
		`[0.5e-999,-0,1E+999]`, `{"x":{"y":[{"z":null,"z":true}]}}`, `"\ud800\udc00"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		err := strictjson.Check(doc)
		_, derr := strictjson.Decode(doc)
		if (err == nil) != (derr == nil) {
			t.Fatalf("Check %v, Decode %v", err, derr)
		}
		if err != nil {
			var se *strictjson.Error
			if !errors.As(err, &se) {
				t.Fatalf("unnamed error %v", err)
			}
			return
		}
		if !json.Valid(doc) {
			t.Fatalf("accepted what encoding/json refuses: %q", doc)
		}
		if hasDuplicate(t, doc) {
			t.Fatalf("accepted a duplicated member: %q", doc)
		}
	})
}

// hasDuplicate is an independent oracle: it walks doc with encoding/json's
// tokenizer and compares raw member-name tokens after decoding them.
func hasDuplicate(t *testing.T, doc []byte) bool {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	type frame struct {
		obj   bool
		key   bool // the next token in an object is a name
		names map[string]bool
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if s, ok := tok.(string); ok {
				// encoding/json maps lone surrogates to U+FFFD, so a
				// duplicate here may be two distinct names: only count
				// names without a replacement character.
				if top.names[s] && !bytes.ContainsRune([]byte(s), '\uFFFD') {
					return true
				}
				top.names[s] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, key: true, names: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].key = true
			}
		}
	}
}

// FuzzNumberStandIn: for any number literal a validator is shown something
// short that agrees with the exact value on sign, integer-ness and order
// against the bounds the schemas use. big.Rat is the oracle, on literals
// small enough for it.
func FuzzNumberStandIn(f *testing.F) {
	for _, s := range []string{"1e1000001", "-0.000000000000000000000000000000000000000000000000000000000000000000001", "12345678901234567890123456789012345678901234567890123456789012345.5", "9007199254740992", "1e-400", "-0e9999"} {
		f.Add(s)
	}
	bounds := []string{"0", "1", "999", "9007199254740991", "0.5", "100000000000000000000000000000000000000000000000000000000000000"}
	f.Fuzz(func(t *testing.T, lit string) {
		if lit == "" || strings.TrimSpace(lit) != lit || !(lit[0] == '-' || '0' <= lit[0] && lit[0] <= '9') || !json.Valid([]byte(lit)) {
			return
		}
		b, err := strictjson.Decode([]byte(lit))
		if err != nil {
			t.Fatalf("%q: %v", lit, err)
		}
		got := string(b.Value().(json.Number))
		if len(got) > 110 {
			t.Fatalf("%q: stand-in of %d bytes", lit, len(got))
		}
		if len(lit) > 4096 || strings.ContainsAny(lit, "eE") && len(lit)-strings.IndexAny(lit, "eE") > 5 {
			return // too large for the oracle
		}
		want, ok1 := new(big.Rat).SetString(lit)
		have, ok2 := new(big.Rat).SetString(got)
		if !ok1 || !ok2 {
			t.Fatalf("%q → %q: not numbers", lit, got)
		}
		if want.Sign() != have.Sign() || want.IsInt() != have.IsInt() {
			t.Fatalf("%q → %q: sign or integer-ness differs", lit, got)
		}
		for _, s := range bounds {
			for _, sign := range []string{"", "-"} {
				bound, _ := new(big.Rat).SetString(sign + s)
				if want.Cmp(bound) != have.Cmp(bound) {
					t.Fatalf("%q → %q: compares differently with %s%s", lit, got, sign, s)
				}
			}
		}
	})
}

package jsonscan

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestValidatorFailedOnlyPastAnError: Failed turns true once the bytes fed
// reach where the document stops being JSON, and never before — a valid
// document fed in any pieces never fails, and an invalid one fails only
// once the piece holding its error (as End reports it) has been fed (or,
// for a string gone bad, once its bad byte has) — so a trusted scan may
// read every byte fed while Failed is false.
func TestValidatorFailedOnlyPastAnError(t *testing.T) {
	docs := []string{
		`{"a":"x\u00e9\n","b":[1,2.5e3,true,null,{"c":"\ud83d\ude00"}]}`,
		`{"a":"x` + "\x01" + `y","b":1}`,
		`{"a":"\q","b":1}`,
		`{"a":"` + "\xff" + `","b":1}`,
		`{"a":1,}`,
		`{"a":tru}`,
		`{"a":[1 2]}`,
		`{"a":"unterminated`,
		`{"a":1}x`,
		`{"a":01}`,
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, doc := range docs {
		var whole Validator
		whole.Write([]byte(doc))
		_, err := whole.End(nil)
		var se *SyntaxError
		errAt := len(doc) + 1 // past the end: never fails while fed
		if errors.As(err, &se) {
			errAt = se.Offset
		}
		for range 50 {
			var v Validator
			for at := 0; at < len(doc); {
				n := min(len(doc)-at, 1+rng.IntN(4))
				v.Write([]byte(doc[at : at+n]))
				at += n
				if v.Failed() && at <= errAt {
					t.Fatalf("%q: failed after %d bytes, its error is at %d", doc, at, errAt)
				}
			}
			if err == nil && v.Failed() {
				t.Fatalf("%q: a valid document failed", doc)
			}
			// Every invalid document here but the cut one shows it before
			// its end.
			if err != nil && doc != `{"a":"unterminated` && !v.Failed() {
				t.Fatalf("%q: fed whole and not failed (End: %v)", doc, err)
			}
		}
	}
}

package filter

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

func TestInvalidPayload(t *testing.T) {
	tests := map[string]string{
		"empty":                ``,
		"array":                `[]`,
		"string":               `"input"`,
		"number":               `1`,
		"truncated":            `{"input":[`,
		"trailing garbage":     `{"input":[]} x`,
		"two documents":        `{} {}`,
		"trailing comma":       `{"input":[1,]}`,
		"missing colon":        `{"input" []}`,
		"single quotes":        `{'input':[]}`,
		"bad literal":          `{"a":tru}`,
		"bad number":           `{"a":01}`,
		"bad exponent":         `{"a":1e}`,
		"bad escape":           `{"a":"\x"}`,
		"short unicode escape": `{"a":"\u12"}`,
		"raw control char":     "{\"a\":\"x\ny\"}",
		"invalid utf-8":        "{\"a\":\"\xff\"}",
		"truncated utf-8":      "{\"a\":\"\xe6\x97\"}",
		"input object":         `{"input":{}}`,
		"input null":           `{"input":null}`,
		"input number":         `{"input":3}`,
		"duplicate input":      `{"input":[],"input":[]}`,
		"escaped dup input":    `{"input":[],"\u0069nput":[]}`,
		"duplicate type":       `{"input":[{"type":"message","type":"reasoning"}]}`,
		"duplicate ciphertext": `{"input":[{"type":"reasoning","encrypted_content":"a","encrypted_content":"b"}]}`,
		"unclosed item":        `{"input":[{"type":"reasoning"]}`,
		"bad nested":           `{"input":[{"content":[{"a":1}}]}]}`,
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			turn := NewTurn(Options{})
			_, err := turn.Apply(context.Background(), []byte(in), nil)
			wantCode(t, err, diag.InvalidPayload)
			if turn.HasBaseline() {
				t.Fatal("a failed call left a baseline")
			}
		})
	}
}

func TestInputShapesWithNothingToOmit(t *testing.T) {
	for _, in := range []string{
		`{"model":"m"}`,
		` { } `,
		`{"model":"m","input":"hello"}`,
		`{"input":[]}`,
		`{"input":[ ]}`,
		`{"input":[{"v":[1,"x",null,[{"type":"reasoning"}]]},{"content":{"type":"reasoning"}}]}`,
		`{"tools":[{"type":"reasoning","encrypted_content":""}],"input":[{"role":"user","content":"x"}]}`,
	} {
		turn := NewTurn(Options{StripPairedIDs: true})
		res := mustApply(t, turn, []byte(in))
		if res.Output != nil || res.Omitted != (Omitted{}) || res.SHA256 != sha256.Sum256([]byte(in)) {
			t.Fatalf("%s: got %+v %q", in, res.Omitted, res.Output)
		}
		if !turn.HasBaseline() {
			t.Fatalf("%s: an empty baseline was not set", in)
		}
	}
}

// A top-level input item that is not an object is INVALID_PAYLOAD, as the
// DSH Copilot plugin answers it, whether or not anything would be omitted,
// and the failed call sets no baseline.
func TestNonObjectInputItemIsInvalid(t *testing.T) {
	r := reasoningItem("rs_1", "gAAAAABx")
	for _, item := range []string{`1`, `"x"`, `null`, `true`, `[{"type":"reasoning"}]`} {
		for _, in := range []string{`{"input":[` + item + `]}`, `{"input":[` + r + `,` + item + `]}`} {
			for _, opts := range []Options{{}, {Prevalidated: true}, {StripPairedIDs: true, NoCopy: true}} {
				turn := NewTurn(opts)
				_, err := turn.Apply(context.Background(), []byte(in), nil)
				if diag.CodeOf(err) != diag.InvalidPayload || turn.HasBaseline() {
					t.Fatalf("%s %+v: %v (baseline %v)", in, opts, err, turn.HasBaseline())
				}
			}
		}
	}
}

func TestSeparatorsAfterOmission(t *testing.T) {
	r := reasoningItem("rs_1", "gAAAAABx")
	tests := []struct{ in, want string }{
		{`{"input":[` + r + `]}`, `{"input":[]}`},
		{`{"input":[ ` + r + ` ]}`, `{"input":[  ]}`},
		{`{"input":[` + r + `, {}]}`, `{"input":[{}]}`},
		{`{"input":[{} ,` + r + `]}`, `{"input":[{}]}`},
		{`{"input":[{},` + r + `,` + r + `,{"n":2}]}`, `{"input":[{},{"n":2}]}`},
		{"{\"input\":[\n  " + r + ",\n  " + r + ",\n  {}\n]}", "{\"input\":[\n  {}\n]}"},
		{"{\"input\":[\n  " + r + " ,\n  " + r + "\n]}", "{\"input\":[\n  \n]}"},
		{`{"input":[` + r + `,{},` + r + `,{"n":2},` + r + `]}`, `{"input":[{},{"n":2}]}`},
	}
	for _, tt := range tests {
		res := mustApply(t, NewTurn(Options{}), []byte(tt.in))
		if string(res.Output) != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.in, res.Output, tt.want)
		}
	}
}

package filter

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

func TestTurnOmitsBaselineAndKeepsNewReasoning(t *testing.T) {
	turn := NewTurn(Options{StripPairedIDs: true})
	user := `{"role":"user","content":"fix it"}`
	fc1 := `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":"{}"}`
	out1 := `{"type":"function_call_output","call_id":"call_1","output":"ok"}`
	step1 := body(user, reasoningItem("rs_1", "gAAAAABone"), fc1, out1)
	res := mustApply(t, turn, step1)
	want1 := `{"model":"gpt-5.4","input":[{"role":"user","content":"fix it"},{"type":"function_call","call_id":"call_1","name":"read","arguments":"{}"},` + out1 + `],"store":false}`
	if string(res.Output) != want1 {
		t.Fatalf("step 1 output\n got %s\nwant %s", res.Output, want1)
	}
	if res.Omitted != (Omitted{Items: 1, CodeUnits: 10, StrippedIDs: 1}) {
		t.Fatalf("step 1 omitted %+v", res.Omitted)
	}
	if res.SHA256 != sha256.Sum256(res.Output) {
		t.Fatal("step 1 final sum is not over the output")
	}
	if !turn.HasBaseline() {
		t.Fatal("no baseline after a successful first call")
	}

	fc2 := `{"type":"function_call","id":"fc_2","call_id":"call_2","name":"read","arguments":"{}"}`
	step2 := body(user, reasoningItem("rs_1", "gAAAAABone"), fc1, out1, reasoningItem("rs_2", "gAAAAABtwo"), fc2)
	res = mustApply(t, turn, step2)
	want2 := `{"model":"gpt-5.4","input":[{"role":"user","content":"fix it"},{"type":"function_call","call_id":"call_1","name":"read","arguments":"{}"},` +
		out1 + `,` + reasoningItem("rs_2", "gAAAAABtwo") + `,` + fc2 + `],"store":false}`
	if string(res.Output) != want2 {
		t.Fatalf("step 2 output\n got %s\nwant %s", res.Output, want2)
	}

	// A step with only the turn's own reasoning is unchanged.
	step3 := body(user, reasoningItem("rs_2", "gAAAAABtwo"), fc2)
	res = mustApply(t, turn, step3)
	if res.Output != nil || res.Omitted != (Omitted{}) || res.SHA256 != sha256.Sum256(step3) {
		t.Fatalf("step 3: %+v, output %q", res.Omitted, res.Output)
	}
}

func TestFingerprintIdentity(t *testing.T) {
	tests := []struct {
		name         string
		first, later string // raw ciphertexts
		omitted      bool
	}{
		{"same bytes", "gAAAAAB/x+y=", "gAAAAAB/x+y=", true},
		{"escaped solidus", "gAAAAAB/x", `gAAAAAB\/x`, true},
		{"unicode escape", "gAAAAABx", `gAAAAAB\u0078`, true},
		{"uppercase hex escape", "gAAAAAB\u00e9", `gAAAAAB\u00E9`, true},
		{"surrogate pair vs raw", "gAAAAAB\U0001F600", `gAAAAAB\ud83d\ude00`, true},
		{"control escape", `gAAAAAB\n`, `gAAAAAB\u000a`, true},
		{"different ciphertext", "gAAAAABx", "gAAAAABy", false},
		{"distinct lone surrogates", `gAAAAAB\ud800`, `gAAAAAB\ud801`, false},
		{"lone surrogate vs replacement", `gAAAAAB\ud800`, "gAAAAAB\uFFFD", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := NewTurn(Options{})
			mustApply(t, turn, body(reasoningItem("rs_1", tt.first)))
			// A changed id and summary do not change the fingerprint.
			later := `{"summary":[],"encrypted_content":"` + tt.later + `","type":"reasoning","id":"rs_other"}`
			res := mustApply(t, turn, body(later))
			if got := res.Omitted.Items == 1; got != tt.omitted {
				t.Fatalf("omitted = %v, want %v", got, tt.omitted)
			}
		})
	}
}

func TestDuplicatesAreAllOmittedAndCounted(t *testing.T) {
	turn := NewTurn(Options{})
	r := reasoningItem("rs_1", "gAAAAABdup")
	in := body(r, `{"role":"user","content":"a"}`, r, r)
	res := mustApply(t, turn, in)
	want := `{"model":"gpt-5.4","input":[{"role":"user","content":"a"}],"store":false}`
	if string(res.Output) != want || res.Omitted.Items != 3 || res.Omitted.CodeUnits != 30 {
		t.Fatalf("got %s %+v", res.Output, res.Omitted)
	}
}

func TestCodeUnitsAreUTF16(t *testing.T) {
	// "é" is 2 bytes and 1 unit, "😀" 4 bytes and 2 units, its escape 12 bytes and 2 units.
	cipher := "a\u00e9\U0001F600" + `\ud83d\ude00\u0041`
	res := mustApply(t, NewTurn(Options{}), body(reasoningItem("rs_1", cipher)))
	if res.Omitted.CodeUnits != 1+1+2+2+1 {
		t.Fatalf("code units = %d, want 7", res.Omitted.CodeUnits)
	}
}

func TestUnsupportedReasoning(t *testing.T) {
	tests := map[string]string{
		"in progress":        `{"type":"reasoning","status":"in_progress","encrypted_content":"gAAAAABx"}`,
		"incomplete":         `{"type":"reasoning","encrypted_content":"gAAAAABx","status":"incomplete"}`,
		"null status":        `{"type":"reasoning","encrypted_content":"gAAAAABx","status":null}`,
		"missing ciphertext": `{"type":"reasoning","id":"rs_1","summary":[]}`,
		"empty ciphertext":   `{"type":"reasoning","encrypted_content":""}`,
		"number ciphertext":  `{"type":"reasoning","encrypted_content":12}`,
		"null ciphertext":    `{"type":"reasoning","encrypted_content":null}`,
		"object ciphertext":  `{"type":"reasoning","encrypted_content":{"v":"gAAAAABx"}}`,
		"escaped type":       `{"type":"reas\u006fning","encrypted_content":""}`,
	}
	for name, it := range tests {
		t.Run(name, func(t *testing.T) {
			turn := NewTurn(Options{})
			_, err := turn.Apply(context.Background(), body(`{"role":"user","content":"x"}`, it), nil)
			wantCode(t, err, diag.UnsupportedReasoning)
			if turn.HasBaseline() {
				t.Fatal("a failed call left a baseline")
			}
		})
	}
}

func TestSupportedStatus(t *testing.T) {
	for _, it := range []string{
		`{"type":"reasoning","encrypted_content":"gAAAAABx","status":"completed"}`,
		`{"type":"reasoning","encrypted_content":"gAAAAABx","status":"complet\u0065d"}`,
		`{"type":"reasoning","encrypted_content":"gAAAAABx"}`,
	} {
		if res := mustApply(t, NewTurn(Options{}), body(it)); res.Omitted.Items != 1 {
			t.Fatalf("%s: not omitted", it)
		}
	}
}

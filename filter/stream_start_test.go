package filter

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// streamed sends payload through a Stream started on it whole and returns the pieces it emitted joined.
func streamed(t *testing.T, payload []byte, omit func(Candidate) bool) ([]byte, Result, error) {
	t.Helper()
	var got []byte
	res, err := Start(context.Background(), payload, Options{StripPairedIDs: true}).Send(omit, func(b []byte) error {
		if len(b) == 0 {
			t.Error("empty piece emitted")
		}
		got = append(got, b...)
		return nil
	})
	return got, res, err
}

// TestStartFollowsSelect: across generated payloads of every shape
// and size (from 40 KiB to 2 MiB, reasoning-heavy ones hashed on two
// goroutines) and random decisions, the bytes a Stream emits while it
// scans are exactly Select's output, with the same counts.
func TestStartFollowsSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	specs := []payloadgen.Spec{
		payloadgen.Typical(600 << 10),
		payloadgen.ReasoningHeavy(1<<20, 9),
		payloadgen.Ordinary(700 << 10),
		{Seed: 4, Size: 40 << 10, Reasoning: 7, CipherBytes: 512, SummaryParts: 1, ToolOutputBytes: 256},
		{Seed: 5, Size: 2 << 20, Reasoning: 150, CipherBytes: 2 << 10, SummaryParts: 2, ToolOutputBytes: 8 << 10, ImageBytes: 300 << 10},
	}
	for i := range 40 {
		spec := specs[i%len(specs)]
		spec.Seed += uint64(i)
		payload := payloadgen.Generate(spec).Body
		p := rng.Float64()
		drop := map[[32]byte]bool{}
		omit := func(c Candidate) bool {
			if _, seen := drop[c.Fingerprint]; !seen {
				drop[c.Fingerprint] = rng.Float64() < p
			}
			return drop[c.Fingerprint]
		}
		got, res, err := streamed(t, payload, omit)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Select(context.Background(), payload, Options{StripPairedIDs: true}, nil, func(c Candidate) bool { return drop[c.Fingerprint] })
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Final(payload)) || res.Omitted != want.Omitted {
			t.Fatalf("payload %d (%d bytes): %d bytes emitted, Select gives %d; %+v vs %+v",
				i, len(payload), len(got), len(want.Final(payload)), res.Omitted, want.Omitted)
		}
	}
}

// TestStartLateError: a payload that is malformed, or holds an
// unsupported reasoning item, only in its last input item fails with
// Select's named error, and what was emitted before the scan got there is
// a prefix of the payload that stops before that item: the body is never
// completed.
func TestStartLateError(t *testing.T) {
	payload := payloadgen.Generate(payloadgen.Typical(2 << 20)).Body
	last := bytes.LastIndex(payload, []byte(`,{"type":"function_call_output"`)) + 1
	cases := []struct {
		name, code string
		payload    []byte
	}{
		{"malformed", diag.InvalidPayload, insert(payload, last+len(`{"type":"function_call_output","call_id":"`), "\x01")},
		{"unsupported", diag.UnsupportedReasoning, insert(payload, last, `{"type":"reasoning","encrypted_content":""},`)},
		{"trailing", diag.InvalidPayload, append(append([]byte{}, payload...), '}')},
	}
	for _, c := range cases {
		_, wantErr := Select(context.Background(), c.payload, Options{}, nil, func(Candidate) bool { return false })
		got, _, err := streamed(t, c.payload, func(Candidate) bool { return false })
		wantCode(t, wantErr, c.code)
		wantCode(t, err, c.code)
		if err.Error() != wantErr.Error() {
			t.Fatalf("%s: %v, Select says %v", c.name, err, wantErr)
		}
		limit := last
		if c.name == "trailing" {
			limit = bytes.LastIndex(payload, []byte(`],"stream":true`)) // the end of input's last item
		}
		if !bytes.HasPrefix(c.payload, got) || len(got) > limit {
			t.Fatalf("%s: emitted %d bytes of %d, past %d", c.name, len(got), len(c.payload), limit)
		}
	}
}

// insert returns b with s inserted at i, in a new slice.
func insert(b []byte, i int, s string) []byte {
	return append(append(append([]byte{}, b[:i]...), s...), b[i:]...)
}

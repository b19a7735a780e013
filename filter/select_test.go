package filter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

// TestSelect: the caller's decisions cut exactly the chosen reasoning and
// compaction items, the id after an omitted reasoning item goes (never the
// one after a compaction item), candidates arrive in input order with the
// fingerprint of their content, and the final sum is the output's, small and
// large.
func TestSelect(t *testing.T) {
	for _, pad := range []int{0, 300 << 10} {
		big := strings.Repeat("p", pad)
		mine, theirs, cmpMine, cmpTheirs := "gAAA-mine"+big, "gAAA-theirs"+big, "cmp-mine", "cmp-theirs"
		items := []string{
			`{"role":"user","content":"q"}`,
			`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"` + theirs + `"}`,
			`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{}"}`,
			`{"type":"compaction","id":"cmp_1","encrypted_content":"` + cmpTheirs + `"}`,
			`{"type":"message","id":"msg_2","role":"assistant","content":[]}`,
			`{"type":"compaction","encrypted_content":"` + cmpMine + `"}`,
			`{"type":"reasoning","id":"rs_3","summary":[],"encrypted_content":"` + mine + `"}`,
			`{"type":"message","id":"msg_3","role":"assistant","content":[]}`,
		}
		payload := []byte(`{"model":"m","input":[` + strings.Join(items, ",") + `],"store":false}`)
		foreign := map[[32]byte]bool{Fingerprint(theirs): true, Fingerprint(cmpTheirs): true}
		var seen []Candidate
		res, err := Select(context.Background(), payload, Options{StripPairedIDs: true}, nil, func(c Candidate) bool {
			seen = append(seen, c)
			return foreign[c.Fingerprint]
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []Candidate{{Reasoning, 1, Fingerprint(theirs)}, {Compaction, 3, Fingerprint(cmpTheirs)},
			{Compaction, 5, Fingerprint(cmpMine)}, {Reasoning, 6, Fingerprint(mine)}}
		if len(seen) != len(want) {
			t.Fatalf("candidates %v", seen)
		}
		for i := range want {
			if seen[i] != want[i] {
				t.Fatalf("candidate %d: %+v, want %+v", i, seen[i], want[i])
			}
		}
		wantOut := `{"model":"m","input":[` + strings.Join([]string{items[0],
			`{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"}`,
			items[4], items[5], items[6], items[7]}, ",") + `],"store":false}`
		out := res.Final(payload)
		if string(out) != wantOut {
			t.Fatalf("output\n%.300s\nwant\n%.300s", out, wantOut)
		}
		if res.Omitted.Items != 1 || res.Omitted.Compactions != 1 || res.Omitted.StrippedIDs != 1 ||
			res.Omitted.CodeUnits != len(theirs)+len(cmpTheirs) {
			t.Fatalf("omitted %+v", res.Omitted)
		}
		if res.SHA256 != sha256.Sum256(out) {
			t.Fatal("the final sum is not the output's")
		}
	}
}

// TestSelectKeepsAll: keeping everything leaves the payload unchanged, and
// errors are the filter's named ones.
func TestSelectKeepsAll(t *testing.T) {
	payload := []byte(`{"input":[{"type":"compaction","encrypted_content":"x"},{"role":"user","content":"q"}]}`)
	res, err := Select(context.Background(), payload, Options{}, nil, func(Candidate) bool { return false })
	if err != nil || res.Changed() || !bytes.Equal(res.Final(payload), payload) || res.SHA256 != sha256.Sum256(payload) {
		t.Fatalf("%+v %v", res, err)
	}
	_, err = Select(context.Background(), []byte(`{"input":[`), Options{}, nil, func(Candidate) bool { return true })
	var de *diag.Error
	if !errors.As(err, &de) || de.Code != diag.InvalidPayload {
		t.Fatalf("truncated payload: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Select(ctx, payload, Options{}, nil, func(Candidate) bool { return true }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// TestTurnKeepsCompaction: the plugin's Turn still never omits compaction.
func TestTurnKeepsCompaction(t *testing.T) {
	payload := []byte(`{"input":[{"type":"compaction","encrypted_content":"x"},{"type":"reasoning","id":"rs_1","encrypted_content":"y"},{"type":"message","role":"assistant","content":[]}]}`)
	res, err := NewTurn(Options{}).Apply(context.Background(), payload, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Final(payload)); got != `{"input":[{"type":"compaction","encrypted_content":"x"},{"type":"message","role":"assistant","content":[]}]}` {
		t.Fatalf("turn output %s", got)
	}
}

// TestStream: the emitted pieces join to Select's output, for small
// and large payloads; an emit error ends the call with it; cancellation
// stops it.
func TestStream(t *testing.T) {
	for _, pad := range []int{0, 300 << 10} {
		big := strings.Repeat("p", pad)
		items := []string{`{"role":"user","content":"q"}`,
			`{"type":"reasoning","id":"rs_1","encrypted_content":"A` + big + `"}`,
			`{"type":"function_call","id":"fc_1","call_id":"c","name":"f","arguments":"{}"}`,
			`{"type":"compaction","encrypted_content":"B` + big + `"}`,
			`{"type":"reasoning","id":"rs_2","encrypted_content":"C` + big + `"}`,
			`{"type":"message","id":"msg_2","role":"assistant","content":[]}`}
		payload := []byte(`{"input":[` + strings.Join(items, ",") + `]}`)
		drop := map[[32]byte]bool{Fingerprint("A" + big): true, Fingerprint("B" + big): true}
		omit := func(c Candidate) bool { return drop[c.Fingerprint] }
		want, err := Select(context.Background(), payload, Options{StripPairedIDs: true}, nil, omit)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		res, err := Start(context.Background(), payload, Options{StripPairedIDs: true}).Send(omit, func(b []byte) error {
			got = append(got, b...)
			return nil
		})
		if err != nil || !bytes.Equal(got, want.Final(payload)) || res.Omitted != want.Omitted {
			t.Fatalf("pad %d: %v %+v vs %+v\n%.200s", pad, err, res.Omitted, want.Omitted, got)
		}
		stop := errors.New("upstream gone")
		if _, err := Start(context.Background(), payload, Options{}).Send(omit, func([]byte) error { return stop }); !errors.Is(err, stop) {
			t.Fatalf("emit error: %v", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Start(ctx, payload, Options{}).Send(omit, func([]byte) error { return nil }); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: %v", err)
		}
	}
	if _, err := Start(context.Background(), []byte(`{"input":[}`), Options{}).Send(nil, nil); err == nil {
		t.Fatal("malformed payload emitted")
	}
}

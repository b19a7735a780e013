package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/internal/testbin"
)

// TestPluginRoundTrip drives the real binary through the lean client: a
// turn's first payload comes back with its reasoning cut out, byte for
// byte what the filter produces in process, and a payload without
// reasoning comes back unchanged.
func TestPluginRoundTrip(t *testing.T) {
	p, err := StartPlugin(testbin.Path(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	cases := []struct {
		kind    string
		outcome string
	}{
		{KindReasoning, "filtered"},
		{KindTypical, "filtered"},
		{KindOrdinary, "unchanged"},
	}
	for _, c := range cases {
		pl, err := Generate(c.kind, 64<<10)
		if err != nil {
			t.Fatal(err)
		}
		want, err := filter.NewTurn(filter.Options{StripPairedIDs: true}).Apply(context.Background(), pl.Body, nil)
		if err != nil {
			t.Fatal(err)
		}
		for turn := range 2 { // a fresh turn per payload, as the bench does
			if err := p.NextTurn(); err != nil {
				t.Fatal(err)
			}
			got, _, err := p.Payload(pl.Body)
			if err != nil {
				t.Fatalf("%s turn %d: %v", c.kind, turn, err)
			}
			if got.Outcome != c.outcome || got.Omitted != pl.Reasoning() {
				t.Fatalf("%s: outcome %s omitted %d, want %s and %d", c.kind, got.Outcome, got.Omitted, c.outcome, pl.Reasoning())
			}
			if !bytes.Equal(got.Payload, want.Output) {
				t.Fatalf("%s: the plugin's bytes (%d) differ from the filter's (%d)", c.kind, len(got.Payload), len(want.Output))
			}
			if sum := sha256.Sum256(want.Final(pl.Body)); got.SHA256 != hex.EncodeToString(sum[:]) {
				t.Fatalf("%s: sha256 %s is not the digest of the final bytes", c.kind, got.SHA256)
			}
		}
	}
	if p.Unexpected != 0 {
		t.Fatalf("the plugin sent %d requests to a host without services", p.Unexpected)
	}
}

// TestPipeCopy checks the transport baseline returns the whole line, also
// when it is far larger than the pipe's buffer.
func TestPipeCopy(t *testing.T) {
	cat, err := StartPipe()
	if err != nil {
		t.Fatalf("the transport baseline needs cat: %v", err)
	}
	defer cat.Close()
	for _, n := range []int{10, 3 << 20} {
		frame := append(bytes.Repeat([]byte("x"), n), '\n')
		if _, err := cat.Copy(frame); err != nil {
			t.Fatal(err)
		}
	}
}

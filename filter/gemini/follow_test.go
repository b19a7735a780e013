package gemini

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

// followed scans in as it would arrive from a connection: copied into the
// follower's buffer in chunks of 1 to max bytes, each reported as it lands.
func followed(in []byte, r *rand.Rand, most int) (*Doc, error) {
	buf := make([]byte, len(in))
	f := Follow(buf)
	for n := 0; n < len(in); {
		m := min(len(in)-n, 1+r.IntN(most))
		copy(buf[n:], in[n:n+m])
		n += m
		f.Arrived(n)
	}
	return f.Doc()
}

// smallSteps makes followed scans of test-sized payloads wait for a few
// bytes at a time, so that steps fail on prefixes and are redone.
func smallSteps(t testing.TB) {
	old := followStep
	followStep = 1
	t.Cleanup(func() { followStep = old })
}

// sameScan fails unless the followed scan of in gives what Scan gives:
// the same Doc, or an error with the same text.
func sameScan(t testing.TB, in []byte, r *rand.Rand, most int) *Doc {
	t.Helper()
	want, werr := Scan(in)
	got, gerr := followed(in, r, most)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("followed scan: err %v, Scan: %v\n in %q", gerr, werr, in)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("followed scan indexed otherwise than Scan\n in %q", in)
	}
	return got
}

// TestFollowStops: a payload that stops arriving ends the scan with
// ErrStopped, and Stop returns only once the scan no longer reads it.
func TestFollowStops(t *testing.T) {
	in := render(genConversation(newRand(3)), false)
	buf := make([]byte, len(in))
	f := Follow(buf)
	copy(buf, in[:len(in)/2])
	f.Arrived(len(in) / 2)
	f.Stop()
	if _, err := f.Doc(); !errors.Is(err, ErrStopped) {
		t.Fatalf("err = %v, want ErrStopped", err)
	}
}

// TestFollowNamesBadPayloads: a followed payload is refused with Scan's
// own error, whether the fault shows early or at the end, and numbers cut
// by an arrival are read whole.
func TestFollowNamesBadPayloads(t *testing.T) {
	smallSteps(t)
	r := newRand(5)
	for _, in := range []string{
		`{"contents":[`, `[1]`, `{"contents":[],"contents":[]}`, `{"contents":{}}`, `{"contents":[1]}`,
		`{"contents":[{"role":"user","role":"model"}]}`, `{"contents":[{"parts":[{"thoughtSignature":1}]}]}`,
		`{"generationConfig":{"temperature":1},"n":12345,"contents":[{"parts":[{"text":"x"}]}],"m":-1.5e3}`,
		`{"n":12345}`, `{"n":12345} x`, ` {"contents":[]} `, ``, `{}`,
	} {
		for range 20 {
			sameScan(t, []byte(in), r, 3)
		}
	}
}

package filter

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/jsonscan"
)

// followFrame lays payload out as an llm/payload frame's params would:
// the object, then the rest of the frame, in a buffer with room to spare.
func followFrame(payload []byte) (buf []byte, frameLen int) {
	tail := []byte(`,"sessionId":"s","turn":1},"id":7}`)
	buf = make([]byte, len(payload)+len(tail)+4096)
	n := copy(buf, payload)
	n += copy(buf[n:], tail)
	return buf, n
}

// feed writes buf[:n] of src into f's buffer in random pieces, reporting
// each, and then that the frame ended at n.
func feed(f *Followed, dst, src []byte, n int, rng *rand.Rand) {
	for at := 0; at < n; {
		step := min(n-at, 1+rng.IntN(96<<10))
		copy(dst[at:at+step], src[at:at+step])
		at += step
		f.Arrived(at)
	}
	f.Finish(n)
}

// followPrefix is what comes before the payload in its frame.
const followPrefix = `{"params":{"payload":`

// feedValidated is feed with the wire's validation in front: each piece is
// fed to v (bound to the frame buffer by Follow) and its strings published
// before the piece is reported, as the wire's read loop does.
func feedValidated(f *Followed, v *jsonscan.Validator, dst, src []byte, n int, rng *rand.Rand) {
	for at := 0; at < n; {
		step := min(n-at, 1+rng.IntN(96<<10))
		copy(dst[at:at+step], src[at:at+step])
		v.Write(dst[at : at+step])
		v.Publish()
		at += step
		f.Arrived(at)
	}
	f.Finish(n)
}

// followedResult follows payload laid out in a frame, fed from another
// goroutine, and applies it to turn. A prevalidated payload is validated
// as it is fed, and followed with the validator's spans, as the wire does.
func followedResult(t *testing.T, turn *Turn, payload []byte, opts Options, seed uint64) (Result, []byte, error) {
	t.Helper()
	src, n := followFrame(payload)
	frame := make([]byte, len(followPrefix)+len(src))
	buf := frame[len(followPrefix):]
	var v *jsonscan.Validator
	long := jsonscan.Spans{}
	if opts.Prevalidated {
		v = new(jsonscan.Validator)
		v.Write(frame[:copy(frame, followPrefix)])
		long = v.Follow(frame)
	}
	f := FollowPayload(buf, opts, long)
	defer f.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		rng := rand.New(rand.NewPCG(seed, 1))
		if v != nil {
			feedValidated(f, v, buf, src, n, rng)
			return
		}
		feed(f, buf, src, n, rng)
	}()
	<-done
	res, err := turn.ApplyFollowed(context.Background(), f, buf[:len(payload)], nil)
	if err == nil && (f.err != nil || !f.covers(buf[:len(payload)])) {
		t.Errorf("the following did not filter a valid payload (%v): Apply did", f.err)
	}
	return res, buf[:len(payload)], err
}

func followedPayloads(t *testing.T) map[string][]byte {
	t.Helper()
	ps := map[string][]byte{
		"reasoning": payloadgen.Generate(payloadgen.ReasoningHeavy(3<<20, 200)).Body,
		"ordinary":  payloadgen.Generate(payloadgen.Ordinary(3 << 20)).Body,
		"typical":   payloadgen.Generate(payloadgen.Typical(3 << 20)).Body,
		"numbers":   []byte(`{"max_output_tokens":4096,"input":[` + reasoningItem("rs_1", "abc") + `,{"type":"message","id":"msg_1","role":"assistant","content":[]}],"temperature":12345678901}`),
		"no input":  []byte(`{"model":"m","temperature":1}`),
		"string":    []byte(`{"input" : "hello" }`),
		"long":      longStrings(),
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '{' {
			ps[filepath.Base(file)] = b
		}
	}
	return ps
}

// TestFollowedMatchesApply: a payload followed while it arrives gives
// exactly Apply's result — bytes, counts, sum and the baseline a later
// step is decided by — for generated payloads of every kind and the
// fixtures, validating or prevalidated, stripping ids or not.
func TestFollowedMatchesApply(t *testing.T) {
	for name, payload := range followedPayloads(t) {
		for _, opts := range []Options{
			{StripPairedIDs: true, NoCopy: true},
			{StripPairedIDs: true, Prevalidated: true, NoCopy: true},
			{StripPairedIDs: false},
		} {
			want := NewTurn(opts)
			got := NewTurn(opts)
			for step := 0; step < 2; step++ {
				wres, werr := want.Apply(context.Background(), payload, nil)
				gres, out, gerr := followedResult(t, got, payload, Options{Prevalidated: opts.Prevalidated}, uint64(step))
				if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
					t.Fatalf("%s %+v step %d: followed %v, Apply %v", name, opts, step, gerr, werr)
				}
				if werr != nil {
					break
				}
				if !bytes.Equal(gres.Final(out), wres.Final(payload)) || gres.Omitted != wres.Omitted ||
					gres.SHA256 != wres.SHA256 || gres.Changed() != wres.Changed() {
					t.Fatalf("%s %+v step %d: followed %+v, Apply %+v", name, opts, step, gres.Omitted, wres.Omitted)
				}
				if got.HasBaseline() != want.HasBaseline() {
					t.Fatalf("%s step %d: baseline %v, want %v", name, step, got.HasBaseline(), want.HasBaseline())
				}
			}
		}
	}
}

// TestFollowedFailsAsApply: a payload the following cannot filter — not
// JSON, an unsupported reasoning item, one whose object does not close
// in the frame — fails with Apply's own error, and leaves no baseline.
func TestFollowedFailsAsApply(t *testing.T) {
	for _, payload := range [][]byte{
		[]byte(`{"input":[{"type":"reasoning","encrypted_content":"x"},]}`),
		[]byte(`{"input":[{"type":"reasoning","summary":[],"encrypted_content":7}]}`),
		[]byte(`{"input":[` + reasoningItem("rs_1", `a\u00zz`) + `]}`),
	} {
		_, werr := NewTurn(Options{StripPairedIDs: true}).Apply(context.Background(), payload, nil)
		turn := NewTurn(Options{StripPairedIDs: true})
		_, _, gerr := followedResult(t, turn, payload, Options{}, 3)
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Fatalf("%s: followed %v, Apply %v", payload, gerr, werr)
		}
		if turn.HasBaseline() {
			t.Fatalf("%s: a failed call left a baseline", payload)
		}
	}
	// The object is cut short by the frame's end: Apply judges the payload
	// the caller found, whatever it is.
	payload := payloadgen.Generate(payloadgen.Typical(1 << 20)).Body
	buf := make([]byte, len(payload)+64)
	f := FollowPayload(buf, Options{}, jsonscan.Spans{})
	defer f.Close()
	half := copy(buf, payload[:len(payload)/2])
	f.Arrived(half)
	f.Finish(half)
	turn := NewTurn(Options{StripPairedIDs: true})
	_, err := turn.ApplyFollowed(context.Background(), f, buf[:half], nil)
	_, want := NewTurn(Options{StripPairedIDs: true}).Apply(context.Background(), payload[:half], nil)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("cut payload: followed %v, Apply %v", err, want)
	}
}

// TestFollowedOtherBytes: a payload that is not the followed object (other
// bytes, or the object's bytes at another offset) is filtered by Apply.
func TestFollowedOtherBytes(t *testing.T) {
	payload := payloadgen.Generate(payloadgen.Typical(1 << 20)).Body
	src, n := followFrame(payload)
	buf := make([]byte, len(src))
	f := FollowPayload(buf, Options{}, jsonscan.Spans{})
	defer f.Close()
	feed(f, buf, src, n, rand.New(rand.NewPCG(5, 5)))
	other := bytes.Clone(payload)
	res, err := NewTurn(Options{StripPairedIDs: true}).ApplyFollowed(context.Background(), f, other, nil)
	want := mustApply(t, NewTurn(Options{StripPairedIDs: true}), payload)
	if err != nil || res.SHA256 != want.SHA256 || !bytes.Equal(res.Final(other), want.Final(payload)) {
		t.Fatalf("other bytes: %v", err)
	}
	for _, p := range res.Pieces {
		if at := uintptr(unsafe.Pointer(unsafe.SliceData(p))); len(p) > 0 && at >= uintptr(unsafe.Pointer(&buf[0])) && at < uintptr(unsafe.Pointer(&buf[0]))+uintptr(len(buf)) {
			t.Fatal("a piece of the result points into the followed buffer, not the payload")
		}
	}
}

// TestFollowedCancelled: a call cancelled or revoked while the payload is
// still arriving, or after, fails with its cause, leaves no baseline, and
// stops the hashing; Close then returns with nothing left running.
func TestFollowedCancelled(t *testing.T) {
	payload := payloadgen.Generate(payloadgen.ReasoningHeavy(4<<20, 64)).Body
	for _, when := range []string{"arriving", "arrived", "revoked"} {
		src, n := followFrame(payload)
		buf := make([]byte, len(src))
		f := FollowPayload(buf, Options{}, jsonscan.Spans{})
		half := len(payload) / 2
		copy(buf, src[:half])
		f.Arrived(half)
		ctx, cancel := context.WithCancel(context.Background())
		var revoked func() error
		switch when {
		case "arriving":
			go cancel() // while the call waits for the rest
		case "arrived":
			copy(buf[half:], src[half:n])
			f.Arrived(n)
			f.Finish(n)
			cancel()
		case "revoked":
			var polls atomic.Int32
			revoked = func() error {
				if polls.Add(1) > 2 {
					return errRevokedForTest
				}
				return nil
			}
			go func() { // the rest arrives while the call waits
				copy(buf[half:], src[half:n])
				f.Arrived(n)
				f.Finish(n)
			}()
		}
		turn := NewTurn(Options{StripPairedIDs: true})
		_, err := turn.ApplyFollowed(ctx, f, buf[:len(payload)], revoked)
		switch {
		case when == "revoked" && !errors.Is(err, errRevokedForTest):
			t.Fatalf("%s: %v, want the revocation", when, err)
		case when != "revoked" && !errors.Is(err, context.Canceled):
			t.Fatalf("%s: %v, want cancellation", when, err)
		case turn.HasBaseline():
			t.Fatalf("%s: a cancelled call left a baseline", when)
		}
		f.Close()
		cancel()
	}
}

var errRevokedForTest = errors.New("revoked for the test")

// TestFollowedClosedMidway: closing a Followed whose bytes stopped
// arriving returns (the scan waits no more) and a later call filters the
// payload by Apply.
func TestFollowedClosedMidway(t *testing.T) {
	payload := payloadgen.Generate(payloadgen.Ordinary(2 << 20)).Body
	buf := make([]byte, len(payload)+64)
	f := FollowPayload(buf, Options{}, jsonscan.Spans{})
	copy(buf, payload[:len(payload)/3])
	f.Arrived(len(payload) / 3)
	f.Close()
	f.Close()
	copy(buf, payload)
	res, err := NewTurn(Options{StripPairedIDs: true}).ApplyFollowed(context.Background(), f, buf[:len(payload)], nil)
	want := mustApply(t, NewTurn(Options{StripPairedIDs: true}), payload)
	if err != nil || res.SHA256 != want.SHA256 {
		t.Fatalf("after Close: %v", err)
	}
}

// longStrings is a payload whose ciphertexts are longer than
// jsonscan.LongString: plain ones, and ones an escape or non-ASCII
// anywhere (first, last, in the middle) makes not plain, whose bytes are
// not their value and whose length is not their UTF-16 length. Some decode
// to the same value as a plain one. A followed scan that trusted a wrong
// span or plain flag would count, fingerprint or cut them differently
// from Apply.
func longStrings() []byte {
	base := strings.Repeat("QUJDRA+/ZWZn", 700) // 8,400 bytes
	text := strings.Repeat("ok \\t github.com/x é\\n", 400)
	return body(
		reasoningItem("rs_plain", base),
		reasoningItem("rs_slash", strings.ReplaceAll(base, "/", `\/`)),
		reasoningItem("rs_u", base[:5000]+`\u00e9`+base[:100]),
		reasoningItem("rs_utf8", base[:5000]+"é€😀"+base[:100]),
		reasoningItem("rs_first", `\u0051`+base[1:]),
		reasoningItem("rs_last", base+`\n`),
		reasoningItem("rs_again", base),
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"`+text+`"}]}`,
		reasoningItem("rs_short", base[:100]),
	)
}

// TestFollowedPlainAsValidated: a payload followed with the validator's
// spans marks exactly the ciphertexts plain that a validating scan of the
// payload does, among those the spans cover; and it does use the spans
// (otherwise a trusted scan marks none plain).
func TestFollowedPlainAsValidated(t *testing.T) {
	for name, payload := range map[string][]byte{
		"long":      longStrings(),
		"reasoning": payloadgen.Generate(payloadgen.ReasoningHeavy(3<<20, 200)).Body,
	} {
		for seed := range uint64(4) {
			turn := NewTurn(Options{StripPairedIDs: true})
			src, n := followFrame(payload)
			frame := make([]byte, len(followPrefix)+len(src))
			buf := frame[len(followPrefix):]
			var v jsonscan.Validator
			v.Write(frame[:copy(frame, followPrefix)])
			f := FollowPayload(buf, Options{Prevalidated: true}, v.Follow(frame))
			feedValidated(f, &v, buf, src, n, rand.New(rand.NewPCG(seed, 9)))
			if _, err := turn.ApplyFollowed(context.Background(), f, buf[:len(payload)], nil); err != nil || !f.Taken() {
				t.Fatalf("%s: %v (taken %v)", name, err, f.Taken())
			}
			f.Close()
			want := scanner{Scanner: jsonscan.Scanner{B: payload}}
			wd, err := want.scan()
			if err != nil {
				t.Fatal(err)
			}
			gd := f.st.shape.d
			plain := 0
			for k, it := range wd.items {
				g := gd.items[k]
				if g.cipher != it.cipher {
					t.Fatalf("%s seed %d: item %d cipher %v, want %v", name, seed, k, g.cipher, it.cipher)
				}
				long := it.cipher.end-it.cipher.start+2 >= jsonscan.LongString
				if g.cipherPlain != (it.cipherPlain && long) {
					t.Fatalf("%s seed %d: item %d (%d bytes) plain %v, a validating scan %v", name, seed, k, it.cipher.end-it.cipher.start, g.cipherPlain, it.cipherPlain)
				}
				if g.cipherPlain {
					plain++
				}
			}
			if plain == 0 {
				t.Fatalf("%s: no ciphertext plain: the spans were not used", name)
			}
		}
	}
}

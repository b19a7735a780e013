package filter

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// followed copies payload into a fresh buffer in pieces of random size on
// another goroutine, as a reader would, while a Stream follows it; it
// returns the Stream's shape error and what Send emitted. It runs in a
// synctest bubble, so that the reader can wait, at every fourth piece,
// until the scan has caught up with it and waits for bytes (a reader
// slower than the scan), an event and not a guess at how long that takes.
func followed(t *testing.T, payload []byte, rng *rand.Rand, omit func(Candidate) bool) (sh Shape, got []byte, res Result, serr, err error) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		sh, got, res, serr, err = follow(payload, rng, omit)
	})
	return sh, got, res, serr, err
}

// follow is followed inside the bubble; the reader has ended when it returns.
func follow(payload []byte, rng *rand.Rand, omit func(Candidate) bool) (Shape, []byte, Result, error, error) {
	buf := make([]byte, len(payload))
	st := Follow(context.Background(), buf, Options{StripPairedIDs: true})
	sizes := make([]int, 0, 64)
	for n := 0; n < len(payload); {
		k := 1 + rng.IntN(1+rng.IntN(200<<10)) // mostly small, sometimes long
		sizes = append(sizes, k)
		n += k
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		n := 0
		for _, k := range sizes {
			k = min(k, len(payload)-n)
			copy(buf[n:], payload[n:n+k])
			n += k
			st.Arrived(n)
			if k%4 == 0 {
				synctest.Wait() // the Stream has done all it can with what arrived
			}
		}
	}()
	sh, serr := st.Shape()
	var got []byte
	res, err := st.Send(omit, func(b []byte) error {
		got = append(got, b...)
		return nil
	})
	<-read
	return sh, got, res, serr, err
}

// TestFollowFollowsSelect: a Stream that follows a payload arriving in
// pieces of every size emits exactly Select's output, across generated
// payloads of every shape and random decisions.
func TestFollowFollowsSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 13))
	specs := []payloadgen.Spec{
		payloadgen.Typical(900 << 10),
		payloadgen.ReasoningHeavy(1<<20, 6),
		payloadgen.Ordinary(1 << 20),
		{Seed: 4, Size: 20 << 10, Reasoning: 5, CipherBytes: 300, SummaryParts: 1, ToolOutputBytes: 100},
		{Seed: 6, Size: 2 << 20, Reasoning: 120, CipherBytes: 3 << 10, SummaryParts: 2, ToolOutputBytes: 9 << 10, ImageBytes: 400 << 10},
	}
	for i := range 30 {
		spec := specs[i%len(specs)]
		spec.Seed += uint64(i)
		gen := payloadgen.Generate(spec)
		payload := gen.Body
		if i%3 == 1 { // whitespace everywhere a parse may stop
			payload = bytes.ReplaceAll(payload, []byte(`,{"type"`), []byte(" ,\n\t{ \"type\""))
			payload = append(append([]byte("\n "), payload...), "  \n"...)
		}
		p := rng.Float64()
		drop := map[[32]byte]bool{}
		for _, c := range gen.Ciphers {
			drop[Fingerprint(string(gen.Body[c[0]:c[1]]))] = rng.Float64() < p
		}
		omit := func(c Candidate) bool { return drop[c.Fingerprint] }
		want, err := Select(context.Background(), payload, Options{StripPairedIDs: true}, nil, omit)
		if err != nil {
			t.Fatal(err)
		}
		_, got, res, serr, err := followed(t, payload, rng, omit)
		if serr != nil || err != nil {
			t.Fatalf("payload %d: %v %v", i, serr, err)
		}
		if !bytes.Equal(got, want.Final(payload)) || res.Omitted != want.Omitted {
			t.Fatalf("payload %d (%d bytes): %d bytes emitted, Select gives %d; %+v vs %+v",
				i, len(payload), len(got), len(want.Final(payload)), res.Omitted, want.Omitted)
		}
	}
}

// TestFollowErrorsAreSelects: a followed payload that is not valid, or
// breaks a bound, fails with exactly Select's error, from Shape and from
// Send, wherever its fault is.
func TestFollowErrorsAreSelects(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	good := payloadgen.Generate(payloadgen.Typical(700 << 10)).Body
	last := bytes.LastIndex(good, []byte(`,{"type":"function_call_output"`)) + 1
	bad := [][]byte{
		insert(good, last+len(`{"type":"function_call_output","call_id":"`), "\x01"),
		insert(good, last, `{"type":"reasoning","encrypted_content":""},`),
		insert(good, last, `7,`),
		insert(good, 40, `"`),
		append(append([]byte{}, good...), '}'),
		good[:len(good)-1],
		good[:last],
		[]byte(`[1,2]`),
		[]byte(``),
		[]byte(`{"input":[],"input":[]}`),
		append([]byte(`{"input":[],"input":[],"pad":"`), append(bytes.Repeat([]byte("p"), 600<<10), `"}`...)...),
		insert(good, last, strings.Repeat(`{"role":"user","content":"q"},`, MaxItems)),
		[]byte(`{"input":[` + strings.Repeat(`{"type":"reasoning","encrypted_content":"x"},`, MaxReasoningItems) + `{"type":"reasoning","encrypted_content":"x"}]}`),
	}
	for i, payload := range bad {
		_, wantErr := Select(context.Background(), payload, Options{StripPairedIDs: true}, nil, func(Candidate) bool { return true })
		if wantErr == nil {
			t.Fatalf("case %d is valid", i)
		}
		_, _, _, serr, err := followed(t, payload, rng, func(Candidate) bool { return true })
		if serr == nil || err == nil || serr.Error() != wantErr.Error() || err.Error() != wantErr.Error() {
			t.Fatalf("case %d: shape %v, send %v; Select: %v", i, serr, err, wantErr)
		}
	}
}

// TestFollowShape: Shape gives the top-level members and each item's type
// and role as raw JSON.
func TestFollowShape(t *testing.T) {
	payload := []byte(`{"model":"m","input":[{"role":"user","content":"q"},{"type":"function_call_output","call_id":"c","output":"o"},` +
		`{"type":"message","role":"assistant","role":"developer","content":[]}],"prompt_cache_key":"k\u0031"}`)
	sh, _, _, serr, err := followed(t, payload, rand.New(rand.NewPCG(1, 1)), func(Candidate) bool { return false })
	if serr != nil || err != nil {
		t.Fatal(serr, err)
	}
	var members, items []string
	sh.Members(func(name, value []byte) { members = append(members, string(name)+"="+string(value)) })
	sh.Items(func(typ, role []byte) { items = append(items, string(typ)+"/"+string(role)) })
	input := payload[bytes.Index(payload, []byte(`[`)) : bytes.LastIndex(payload, []byte(`]`))+1]
	if strings.Join(members, " ") != `"model"="m" "input"=`+string(input)+` "prompt_cache_key"="k\u0031"` {
		t.Fatalf("members %q", members)
	}
	if strings.Join(items, " ") != `/"user" "function_call_output"/ "message"/"developer"` {
		t.Fatalf("items %q", items)
	}
}

// TestFollowClose: a Stream closed while its payload has not all arrived
// stops waiting and returns.
func TestFollowClose(t *testing.T) {
	payload := payloadgen.Generate(payloadgen.Typical(1 << 20)).Body
	buf := make([]byte, len(payload))
	st := Follow(context.Background(), buf, Options{})
	copy(buf, payload[:len(payload)/2])
	st.Arrived(len(payload) / 2)
	st.Close()
	if _, err := st.Shape(); !errors.Is(err, errStopped) || diag.Has(err, diag.InvalidPayload) {
		t.Fatalf("a payload never read whole: %v", err)
	}
}

// TestFollowEarlyFault: a fault that shows before the rest of the payload
// has arrived (a second input member) is named only once the whole
// payload is there, and then exactly as Select names it.
func TestFollowEarlyFault(t *testing.T) {
	payload := append([]byte(`{"input":[],"input":[],"pad":"`), append(bytes.Repeat([]byte("p"), 600<<10), `"}`...)...)
	_, want := Select(context.Background(), payload, Options{}, nil, func(Candidate) bool { return true })
	synctest.Test(t, func(t *testing.T) {
		buf := make([]byte, len(payload))
		st := Follow(context.Background(), buf, Options{})
		defer st.Close()
		// More than a following scan waits for at once (followStep), so
		// that it reads the fault before the rest arrives.
		half := len(payload) / 2
		copy(buf, payload[:half])
		st.Arrived(half)
		synctest.Wait() // the scan has met the second input and waits for the rest
		select {
		case <-st.scanned:
			t.Fatal("the fault was named before the whole payload arrived")
		default:
		}
		copy(buf[half:], payload[half:])
		st.Arrived(len(payload))
		if _, err := st.Shape(); want == nil || err == nil || err.Error() != want.Error() {
			t.Fatalf("followed: %v; Select: %v", err, want)
		}
	})
}

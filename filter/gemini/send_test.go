package gemini

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// sendFollowed follows in as it arrives in chunks of 1 to most bytes and
// returns what Send emitted before each arrival's next chunk and in all.
// With wait, it gives Send up to 100 ms to emit something before the
// last chunk arrives.
func sendFollowed(in []byte, r *rand.Rand, most int, wait bool, keep func(Candidate) bool, last func(*Doc) error) (early int, out []byte, om Omitted, err error) {
	buf := make([]byte, len(in))
	f := Follow(buf)
	mu := make(chan struct{}, 1) // guards out
	mu <- struct{}{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		om, err = f.Send(context.Background(), keep, func(bs [][]byte) error {
			<-mu
			for _, b := range bs {
				out = append(out, b...)
			}
			mu <- struct{}{}
			return nil
		}, last)
	}()
	emitted := func() int {
		<-mu
		defer func() { mu <- struct{}{} }()
		return len(out)
	}
	for n := 0; n < len(in); {
		m := min(len(in)-n, 1+r.IntN(most))
		if n+m == len(in) {
			for try := 0; wait && try < 100 && emitted() == 0; try++ {
				time.Sleep(time.Millisecond)
			}
			early = emitted()
		}
		copy(buf[n:], in[n:n+m])
		n += m
		f.Arrived(n)
	}
	<-done
	return early, out, om, err
}

// TestSendGenerated: what Send emits as a generated conversation arrives
// is, in all, exactly Select's output with the same decisions, and some
// of it leaves before the payload has arrived.
func TestSendGenerated(t *testing.T) {
	smallSteps(t)
	old := sendEvery
	sendEvery = 1
	t.Cleanup(func() { sendEvery = old })
	r := rand.New(rand.NewPCG(24, 3))
	streamed := 0
	for i := 0; i < 2000; i++ {
		conv := genConversation(r)
		in := render(conv, false)
		keep := keepA(issuersOf(conv))
		if i%5 == 0 {
			keep = nil
		}
		d, err := Scan(in)
		if err != nil {
			t.Fatal(err)
		}
		want, wom := in, Omitted{}
		if keep != nil {
			res, err := d.Select(context.Background(), keep)
			if err != nil {
				t.Fatal(err)
			}
			want, wom = join(res), res.Omitted
		}
		lastSeen := false
		early, got, om, err := sendFollowed(in, r, 1+i%300, i%20 == 0, keep, func(*Doc) error { lastSeen = true; return nil })
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !bytes.Equal(got, want) || om != wom || !lastSeen {
			t.Fatalf("case %d: omitted %+v, want %+v (last called %v)\n in   %s\n got  %s\n want %s", i, om, wom, lastSeen, in, got, want)
		}
		if early > 0 {
			streamed++
		}
	}
	t.Logf("%d of 100 streamed", streamed)
	if streamed < 25 {
		t.Fatalf("only %d of the 100 sends watched emitted anything before the end", streamed)
	}
}

// TestSendStops: a failure of last, or a payload that stops arriving,
// ends Send with that error before the last bytes are emitted.
func TestSendStops(t *testing.T) {
	r := newRand(5)
	in := render(genConversation(r), false)
	stop := errors.New("stop")
	_, got, _, err := sendFollowed(in, r, 64, false, nil, func(*Doc) error { return stop })
	if !errors.Is(err, stop) || bytes.Equal(got, in) {
		t.Fatalf("err = %v, emitted %d of %d bytes", err, len(got), len(in))
	}
	buf := make([]byte, len(in))
	f := Follow(buf)
	copy(buf, in[:len(in)/2])
	f.Arrived(len(in) / 2)
	go f.Stop()
	if _, err := f.Send(context.Background(), nil, func([][]byte) error { return nil }, func(*Doc) error { return nil }); !errors.Is(err, ErrStopped) {
		t.Fatalf("err = %v, want ErrStopped", err)
	}
}

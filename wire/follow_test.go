package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/continuity-dev/continuity/jsonscan"
)

// recorder is a Follower that checks the wire keeps the contract: each
// Arrived reports more of the frame's own bytes, in the buffer it was
// given, all of them the start of a JSON document; Finish comes at most
// once, for a frame that is JSON, and nothing after Close.
type recorder struct {
	t        *testing.T
	buf      []byte // the buffer offered, cap as far as the frame can grow
	frame    []byte // the frame's bytes as sent (with any \r)
	arrived  int
	finished int // -1 until Finish
	closed   int
	val      jsonscan.Validator // what has arrived, fed again
	// strs are the spans offered with the frame; str and strEnd bound
	// the frame's long string (str -1: none).
	strs        jsonscan.Spans
	str, strEnd int
}

// longString finds the long string of a followInput frame: where its
// opening quote is and where it ends (-1 when it has none).
func longString(frame []byte) (at, end int) {
	for _, k := range []string{`{"s":"`, `{"x":"`} {
		if i := bytes.Index(frame, []byte(k)); i >= 0 {
			at = i + len(k) - 1
			return at, at + 2 + bytes.IndexByte(frame[at+1:], '"')
		}
	}
	return -1, -1
}

func (r *recorder) Arrived(n int) {
	if r.closed > 0 || r.finished >= 0 {
		r.t.Errorf("Arrived(%d) after Close or Finish", n)
	}
	if n < r.arrived || n > cap(r.buf) || n > len(r.frame) {
		r.t.Errorf("Arrived(%d) after %d, buffer %d, frame %d", n, r.arrived, cap(r.buf), len(r.frame))
		return
	}
	if !bytes.Equal(r.buf[r.arrived:n], r.frame[r.arrived:n]) {
		r.t.Errorf("Arrived(%d): the buffer does not hold the frame's bytes", n)
	}
	if r.val.Write(r.buf[r.arrived:n]); r.val.Failed() {
		r.t.Errorf("Arrived(%d): shown bytes that are not the start of a JSON document", n)
	}
	r.arrived = n
	if r.str >= 0 && r.strEnd <= n && r.strEnd-r.str >= jsonscan.LongString {
		// Its span was published before these bytes were shown: a
		// trusted scan steps over it, knowing it plain.
		sc := jsonscan.Scanner{B: r.buf[:n], Trusted: true, Long: r.strs}
		if end, err := sc.Str(r.str); err != nil || end != r.strEnd || !sc.Plain {
			r.t.Errorf("Arrived(%d): the string at %d ends at %d plain %v (%v), want its span: end %d, plain", n, r.str, end, sc.Plain, err, r.strEnd)
		}
	}
}

func (r *recorder) Finish(n int) {
	if r.closed > 0 || r.finished >= 0 {
		r.t.Errorf("Finish(%d) after Close or a Finish", n)
	}
	if n != r.arrived || n != len(r.frame) {
		r.t.Errorf("Finish(%d): arrived %d, the frame is %d bytes", n, r.arrived, len(r.frame))
	}
	if !json.Valid(r.frame) {
		r.t.Errorf("Finish(%d) for a frame that is not JSON", n)
	}
	r.finished = n
}

func (r *recorder) Close() { r.closed++ }

// followInput is lines of every kind a follower must survive: followed
// frames valid or not, over the limit, in one read or many, ending in \r\n
// or cut by the end of input, between small frames and frames that grow
// out of their buffer.
func followInput(rng *rand.Rand, limit int) (input []byte, lines [][]byte) {
	pad := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	req := func(id, n int, tail string) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"llm/payload","params":{"payload":{"s":"%s"}}%s`, id, pad(n), tail)
	}
	add := func(l []byte) { lines = append(lines, l) }
	add(req(1, 10, "}"))                                                      // small: cut from the read buffer
	add(req(2, 1<<20, "}"))                                                   // the first large frame
	add(req(3, 1<<20, "}"))                                                   // the same size again
	add(req(4, 1<<20, "}\r"))                                                 // \r\n
	add(req(5, 3<<20, "}"))                                                   // outgrows the buffer sized from the last
	add([]byte(`{"jsonrpc":"2.0","method":"x","params":` + pad(1<<20) + `}`)) // not JSON
	add(req(6, 1<<20, ",tru}"))                                               // malformed after the payload
	add(req(7, limit, "}"))                                                   // over the limit
	add(req(8, 200<<10, "}"))                                                 // a small frame in a big buffer
	add(req(9, 1<<20, `},"method":"other"`))                                  // a second method, after
	add([]byte(`{"jsonrpc":"2.0","method":"session/event","params":{"x":"` + pad(1<<20) + `"}}`))
	add(req(10, 1<<20, "}")) // the last, cut by the end of input
	for i, l := range lines {
		input = append(input, l...)
		if i < len(lines)-1 {
			input = append(input, '\n')
		}
	}
	return input, lines
}

// TestFollowersKeepTheContract: whatever the frames and however the reads
// cut them, a frame reader with a FollowFunc hands out exactly the frames
// and errors one without does; every follower is closed exactly once (by
// the reader, or by recycling the frame it came with); a frame comes with
// its follower only when it is handed out in the buffer followed, which
// then holds all of it, and Finish said so; a follower is shown only
// bytes the validator passed (its scan trusts them).
func TestFollowersKeepTheContract(t *testing.T) {
	const limit = 4 << 20
	for seed := range uint64(6) {
		input, lines := followInput(rand.New(rand.NewPCG(seed, 26)), limit)
		plain := newFrameReader(&chunky{b: input, rng: rand.New(rand.NewPCG(seed, 1))}, limit)
		followed := newFrameReader(&chunky{b: input, rng: rand.New(rand.NewPCG(seed, 1))}, limit)
		byHead := map[string][]byte{}
		for _, l := range lines {
			byHead[string(l[:min(len(l), 1024)])] = l
		}
		var recs []*recorder
		// Odd seeds offer a frame only once 256 KiB of it have arrived.
		followed.followFrom = int(seed%2) * 256 << 10
		followed.follow = func(method string, buf []byte, params int, strs jsonscan.Spans) Follower {
			frame, ok := byHead[string(buf[:min(len(buf), 1024)])]
			if !ok || len(buf) < 1024 {
				t.Fatalf("offered %d bytes that begin no line", len(buf))
			}
			if len(buf) < followed.followFrom {
				t.Fatalf("offered after %d bytes, before FollowFrom %d", len(buf), followed.followFrom)
			}
			if m := []byte(`"method":"` + method + `","params":`); !bytes.HasSuffix(frame[:params], m) {
				t.Errorf("offered method %q, params at %d: %.60q", method, params, frame[:params])
			}
			r := &recorder{t: t, buf: buf, finished: -1, frame: frame, strs: strs}
			r.str, r.strEnd = longString(frame)
			recs = append(recs, r)
			return r
		}
		handed := 0
		for i := 0; ; i++ {
			want, werr := plain.next()
			got, gerr := followed.next()
			if !errors.Is(gerr, werr) || !bytes.Equal(got.line, want.line) {
				t.Fatalf("seed %d frame %d: followed %v %d bytes, plain %v %d bytes", seed, i, gerr, len(got.line), werr, len(want.line))
			}
			if werr == io.EOF {
				break
			}
			if got.follow != nil {
				handed++
				r := got.follow.(*recorder)
				if r.finished != len(r.frame) || unsafe.SliceData(got.line) != unsafe.SliceData(r.buf) || r.closed != 0 {
					t.Fatalf("seed %d frame %d: handed out with a follower that finished at %d of %d, closed %d", seed, i, r.finished, len(r.frame), r.closed)
				}
			}
			plain.recycle(want)
			followed.recycle(got)
		}
		for i, r := range recs {
			if r.closed != 1 {
				t.Fatalf("seed %d: follower %d closed %d times", seed, i, r.closed)
			}
		}
		// Lines 3, 4 and 10 (and others, as the reads fall) are handed
		// out with their follower; the first large one, over the limit
		// and the one that outgrows its buffer are not.
		if handed < 3 || handed >= len(recs) {
			t.Fatalf("seed %d: %d of %d followed frames handed out with their follower", seed, handed, len(recs))
		}
		t.Logf("seed %d (from %d): %d followed, %d handed out with their follower", seed, followed.followFrom, len(recs), handed)
	}
}

// pieces is a recorder that keeps every Arrived.
type pieces struct {
	recorder
	ns []int
}

func (p *pieces) Arrived(n int) {
	p.ns = append(p.ns, n)
	p.recorder.Arrived(n)
}

// TestAFrameReadWholeIsShownInPieces: a followed frame that lands in one
// read (a 1 MiB payload through a 1 MiB pipe) is offered before that read
// is validated and shown to its follower a followPiece at a time, so the
// follower's work overlaps the validation instead of waiting for all of
// it.
func TestAFrameReadWholeIsShownInPieces(t *testing.T) {
	line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"llm/payload","params":{"payload":{"s":"%s"}}}`,
		bytes.Repeat([]byte("ab\\n"), 400<<10))
	input := append(bytes.Clone(line), '\n')
	for _, first := range []bool{false, true} {
		// The second time the buffer is sized from the first frame, so
		// the frame lands in one buffer, in one read after the first.
		var got *pieces
		fr := newFrameReader(&byLine{b: input}, 8<<20)
		if first {
			fr = newFrameReader(&byLine{b: append(bytes.Clone(input), input...)}, 8<<20)
			f, err := fr.next()
			if err != nil {
				t.Fatal(err)
			}
			fr.recycle(f)
		}
		fr.followFrom = 512 << 10
		fr.follow = func(method string, buf []byte, params int, strs jsonscan.Spans) Follower {
			if len(buf) < fr.followFrom {
				t.Fatalf("offered after %d bytes, before FollowFrom %d", len(buf), fr.followFrom)
			}
			got = &pieces{recorder: recorder{t: t, buf: buf, finished: -1, frame: line, strs: strs, str: -1, strEnd: -1}}
			return got
		}
		f, err := fr.next()
		if err != nil || !bytes.Equal(f.line, line) {
			t.Fatalf("read %d bytes, %v; want the %d-byte line", len(f.line), err, len(line))
		}
		if !first {
			// The first large frame outgrows its first buffer: never
			// handed out with a follower.
			fr.recycle(f)
			continue
		}
		if got == nil || f.follow != got || got.finished != len(line) {
			t.Fatalf("the frame was not handed out with a follower that finished")
		}
		// The wire's piece is 128 KiB; a step of twice that would leave
		// the follower waiting for a quarter of a 1 MiB frame.
		const most = 256 << 10
		if got.ns[0] > readChunk {
			t.Fatalf("first shown %d of %d bytes: want the frame from its start", got.ns[0], len(line))
		}
		for i := 1; i < len(got.ns); i++ {
			if got.ns[i]-got.ns[i-1] > most {
				t.Fatalf("shown %d bytes at once after %d", got.ns[i]-got.ns[i-1], got.ns[i-1])
			}
		}
		fr.recycle(f)
		if got.closed != 1 {
			t.Fatalf("the follower was closed %d times", got.closed)
		}
	}
}

// byLine reads like a pipe its writer fills one line at a time: as much
// as asked for, but never past the end of a line.
type byLine struct{ b []byte }

func (r *byLine) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(r.b))
	if i := bytes.IndexByte(r.b[:n], '\n'); i >= 0 {
		n = i + 1
	}
	copy(p, r.b[:n])
	r.b = r.b[n:]
	return n, nil
}

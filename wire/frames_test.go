package wire

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"
)

// chunky returns reads of random small sizes, like a pipe under load.
type chunky struct {
	b   []byte
	rng *rand.Rand
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), 1+c.rng.IntN(3*readChunk))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

func TestFrameReaderSplitsLinesOfEverySize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var input []byte
	var want [][]byte
	for _, size := range []int{0, 1, 10, readChunk - 1, readChunk, readChunk + 1, 3 * readChunk, 4<<20 + 5, 8<<20 + 17, 7} {
		line := bytes.Repeat([]byte{'x'}, size)
		for i := range line {
			line[i] = byte('a' + rng.IntN(26))
		}
		want = append(want, line)
		input = append(append(input, line...), '\n')
	}
	input = append(input, []byte("last-without-newline")...)
	want = append(want, []byte("last-without-newline"))

	f := newFrameReader(&chunky{b: input, rng: rng}, 1<<30)
	for i, w := range want {
		got, err := f.next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !bytes.Equal(got.line, w) {
			t.Fatalf("frame %d: got %d bytes, want %d", i, len(got.line), len(w))
		}
	}
	if _, err := f.next(); err != io.EOF {
		t.Fatalf("after the last frame: %v", err)
	}
}

func TestFrameReaderSkipsOversizedLines(t *testing.T) {
	input := append(bytes.Repeat([]byte{'y'}, 5*readChunk), '\n')
	input = append(input, []byte("ok\n")...)
	input = append(input, bytes.Repeat([]byte{'z'}, 100)...)
	input = append(input, []byte("\nfine")...)
	f := newFrameReader(&chunky{b: input, rng: rand.New(rand.NewPCG(3, 4))}, 2*readChunk)
	if _, err := f.next(); !errors.Is(err, errFrameTooLarge) {
		t.Fatalf("oversized: %v", err)
	}
	for _, w := range []string{"ok", string(bytes.Repeat([]byte{'z'}, 100)), "fine"} {
		got, err := f.next()
		if err != nil || string(got.line) != w {
			t.Fatalf("got %q %v, want %q", got.line, err, w)
		}
	}
}

// TestFrameReaderKeepsFramesUntilRecycled reads many large frames of
// varying sizes and recycles only some of them: every frame that was not
// recycled must still hold its bytes after all later reads, and recycled
// buffers must actually be reused (the steady state allocates nothing per
// frame).
func TestFrameReaderKeepsFramesUntilRecycled(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var input []byte
	var want [][]byte
	for k := range 40 {
		size := readChunk/2 + rng.IntN(3<<20)
		if k%7 == 3 {
			size = rng.IntN(200) // small frames in between
		}
		line := make([]byte, size)
		for i := range line {
			line[i] = byte('a' + rng.IntN(26))
		}
		want = append(want, line)
		input = append(append(input, line...), '\n')
	}
	f := newFrameReader(&chunky{b: input, rng: rng}, 1<<30)
	var kept []frame
	for i, w := range want {
		fr, err := f.next()
		if err != nil || !bytes.Equal(fr.line, w) {
			t.Fatalf("frame %d: %v, %d bytes, want %d", i, err, len(fr.line), len(w))
		}
		if i%2 == 0 {
			kept = append(kept, fr)
			continue
		}
		f.recycle(fr)
	}
	for j, fr := range kept {
		if !bytes.Equal(fr.line, want[2*j]) {
			t.Fatalf("kept frame %d changed after later reads", 2*j)
		}
	}
}

func TestFrameReaderReusesRecycledBuffers(t *testing.T) {
	line := append(bytes.Repeat([]byte{'p'}, 1<<20), '\n')
	var input []byte
	for range 20 {
		input = append(input, line...)
	}
	// A garbage collection would empty the pool (sync.Pool) mid-test, and
	// a buffer put back on one P is not found from another (it sits in
	// that P's private slot): one P, no collection.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f := newFrameReader(bytes.NewReader(input), 1<<30)
	seen := map[*byte]int{}
	for i := range 20 {
		fr, err := f.next()
		if err != nil || len(fr.line) != 1<<20 {
			t.Fatalf("frame %d: %v, %d bytes", i, err, len(fr.line))
		}
		if fr.pooled == nil {
			t.Fatalf("frame %d: a 1 MiB frame is not in a pool buffer", i)
		}
		seen[&fr.pooled[0]]++
		f.recycle(fr)
	}
	// The first frame grows through blocks into a 1 MiB buffer; from the
	// second on, frames are read into one 2 MiB buffer sized from the first.
	if len(seen) > 2 && !raceEnabled {
		t.Fatalf("20 recycled 1 MiB frames used %d different buffers", len(seen))
	}
}

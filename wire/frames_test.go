package wire

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
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
	for _, size := range []int{0, 1, 10, readChunk - 1, readChunk, readChunk + 1, 3 * readChunk, bigBlock + 5, 2*bigBlock + 17, 7} {
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
		if !bytes.Equal(got, w) {
			t.Fatalf("frame %d: got %d bytes, want %d", i, len(got), len(w))
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
		if err != nil || string(got) != w {
			t.Fatalf("got %q %v, want %q", got, err, w)
		}
	}
}

package wire

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFrameReaderLimitOnEveryPath checks the frame limit where large
// frames are gathered in pool buffers (limits from half a read buffer up to
// two pool classes): a line of exactly the limit is a frame, one byte more
// is skipped, with a \n or \r\n ending (whose \r does not count) or at
// EOF without one, and the line after an oversized one is read intact.
func TestFrameReaderLimitOnEveryPath(t *testing.T) {
	for _, max := range []int{readChunk / 2, readChunk + 3, 1 << 17, 1<<17 + 1, 1<<18 - 1, 3 << 18} {
		for _, tc := range []struct {
			name    string
			size    int    // bytes of the line before its ending
			end     string // "\n", "\r\n", "\r" or "" (EOF)
			tooLong bool
		}{
			{"at limit", max, "\n", false},
			{"below limit", max - 1, "\n", false},
			{"over limit", max + 1, "\n", true},
			{"far over limit", 3*max + 7, "\n", true},
			{"below limit with CR", max - 1, "\r\n", false},
			{"at limit with CR", max, "\r\n", false},
			{"over limit with CR", max + 1, "\r\n", true},
			{"at limit with CR at EOF", max, "\r", false},
			{"over limit with CR at EOF", max + 1, "\r", true},
			{"at limit at EOF", max, "", false},
			{"over limit at EOF", max + 1, "", true},
		} {
			rng := rand.New(rand.NewPCG(uint64(max), uint64(tc.size)))
			line := make([]byte, tc.size)
			for i := range line {
				line[i] = byte('a' + rng.IntN(26))
			}
			input := append(append([]byte(nil), line...), tc.end...)
			if strings.HasSuffix(tc.end, "\n") {
				input = append(input, "after\n"...)
			}
			for _, src := range []io.Reader{bytes.NewReader(input), &chunky{b: input, rng: rng}} {
				f := newFrameReader(src, int64(max))
				fr, err := f.next()
				switch {
				case tc.tooLong && !errors.Is(err, errFrameTooLarge):
					t.Fatalf("max %d %s: got %v, want too large", max, tc.name, err)
				case !tc.tooLong && (err != nil || !bytes.Equal(fr.line, bytes.TrimSuffix(line, []byte("\r")))):
					t.Fatalf("max %d %s: got %d bytes, %v", max, tc.name, len(fr.line), err)
				}
				f.recycle(fr)
				if strings.HasSuffix(tc.end, "\n") {
					if fr, err = f.next(); err != nil || string(fr.line) != "after" {
						t.Fatalf("max %d %s: next frame %q %v", max, tc.name, fr.line, err)
					}
				}
				if _, err := f.next(); err != io.EOF {
					t.Fatalf("max %d %s: at the end: %v", max, tc.name, err)
				}
			}
		}
	}
}

// TestRecycledFrameDoesNotLeakIntoParkedParams interleaves large requests
// whose params stay parked with large responses and malformed frames whose
// buffers the Stream recycles at once: the parked params must keep their
// bytes whatever the recycled buffers are reused for.
func TestRecycledFrameDoesNotLeakIntoParkedParams(t *testing.T) {
	var in strings.Builder
	var want []string
	for k := range 12 {
		c := string(rune('a' + k))
		params := `{"p":"` + strings.Repeat(c, 200<<10+k*977) + `"}`
		want = append(want, params)
		in.WriteString(`{"jsonrpc":"2.0","id":` + string(rune('0'+k%10)) + `,"method":"x","params":` + params + "}\r\n")
		in.WriteString(`{"jsonrpc":"2.0","id":7,"result":"` + strings.Repeat("R", 300<<10) + `"}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","id":8,"result":"` + strings.Repeat("M", 300<<10) + "\n") // not JSON
	}
	var out bytes.Buffer
	s := NewStream(strings.NewReader(in.String()), &out, nil, 0, nil)
	var kept [][]byte
	for len(kept) < len(want) {
		var v struct{ Method string }
		if err := s.ReadObject(&v); err != nil {
			t.Fatal(err)
		}
		if v.Method == "" {
			continue
		}
		kept = append(kept, s.takeRequest().Params.Bytes()) // never released
	}
	var rest map[string]any
	if err := s.ReadObject(&rest); err != io.EOF { // answers never reach the library
		t.Fatalf("at the end: %v", err)
	}
	for k, b := range kept {
		if string(b) != want[k] {
			t.Fatalf("parked params %d changed after later frames were recycled", k)
		}
	}
	if n := strings.Count(out.String(), `"code":-32700`); n != len(want) {
		t.Fatalf("%d parse errors answered, want %d", n, len(want))
	}
}

// pipeReads returns at most 64 KiB per read, like a pipe.
type pipeReads struct{ r io.Reader }

func (p pipeReads) Read(b []byte) (int, error) { return p.r.Read(b[:min(len(b), 64<<10)]) }

// TestSmallFrameAfterHugeFrameGetsASmallBuffer reads a 100 MiB frame that
// is never recycled (a method other than llm/payload keeps its params),
// then a 40 KiB frame that straddles the read buffer's end, so it is
// gathered in a pool buffer. That buffer must be sized from the frame, not
// from the huge frame before it: otherwise a 40 KiB request allocates (and
// zeroes) 128 MiB, which its parked params then pin for as long as they
// are referenced.
func TestSmallFrameAfterHugeFrameGetsASmallBuffer(t *testing.T) {
	big := append(bytes.Repeat([]byte{'a'}, 100<<20), '\n')
	in := append(append(big, bytes.Repeat([]byte{'c'}, 30<<10)...), '\n')
	in = append(in, append(bytes.Repeat([]byte{'b'}, 40<<10), '\n')...)
	f := newFrameReader(pipeReads{bytes.NewReader(in)}, DefaultMaxFrameBytes)
	huge, err := f.next() // kept: its buffer is not in the pool
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.next(); err != nil {
		t.Fatal(err)
	}
	small, err := f.next()
	if err != nil || len(small.line) != 40<<10 {
		t.Fatalf("small frame: %v, %d bytes", err, len(small.line))
	}
	if small.pooled == nil {
		t.Fatal("the small frame was not gathered in a pool buffer: the reads no longer reach the path this test is about")
	}
	if c := cap(small.pooled); c > 1<<20 {
		t.Fatalf("a %d-byte frame was gathered in a %d-byte buffer (sized from the previous %d-byte frame)", len(small.line), c, len(huge.line))
	}
}

// TestSmallFrameIsNotHeldInABigBuffer reads a 200 KiB frame into the 4 MiB
// buffer sized from a 2 MiB frame before it: the frame is moved into a
// buffer of its own size, so a handler that keeps it does not keep 4 MiB.
func TestSmallFrameIsNotHeldInABigBuffer(t *testing.T) {
	in := append(bytes.Repeat([]byte{'a'}, 2<<20), '\n')
	in = append(in, append(bytes.Repeat([]byte{'b'}, 200<<10), '\n')...)
	f := newFrameReader(bytes.NewReader(in), DefaultMaxFrameBytes)
	if _, err := f.next(); err != nil {
		t.Fatal(err)
	}
	small, err := f.next()
	if err != nil || len(small.line) != 200<<10 || small.line[0] != 'b' {
		t.Fatalf("small frame: %v, %d bytes", err, len(small.line))
	}
	if c := cap(small.pooled); c > 256<<10 {
		t.Fatalf("a %d-byte frame is held in a %d-byte buffer", len(small.line), c)
	}
}

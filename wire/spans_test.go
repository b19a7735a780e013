package wire

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/continuity-dev/continuity/jsonscan"
)

// TestParamsCarryTheFramesLongStrings: the params of a frame validated
// while it arrived carry its long strings — a frame joined from blocks,
// one handed out in place, one ending in \r\n — and trusted scans of the
// params given them read the same members as scans without; a frame with
// no long string carries none, and released params carry none either.
func TestParamsCarryTheFramesLongStrings(t *testing.T) {
	frames := []struct {
		text, end string
		spans     int
	}{
		{bigText(6 << 20), "\n", 1}, // the stream's first large frame: joined from blocks
		{bigText(6 << 20), "\n", 1}, // sized from the first: in place
		{bigText(3 << 20), "\r\n", 1},
		{"short", "\n", 0},
		{bigText(jsonscan.LongString - 10), "\n", 0},
	}
	var input []byte
	for i, f := range frames {
		input = fmt.Appendf(input, `{"jsonrpc":"2.0","id":%d,"method":"session.event","params":{"sessionId":"s","event":{"type":"tool/result","data":{"text":"%s"}}}}%s`, i, f.text, f.end)
	}
	s := NewStream(&chunky{b: input, rng: rand.New(rand.NewPCG(26, 1))}, io.Discard, nil, 0, nil)
	for i, f := range frames {
		var m struct{ Method string }
		if err := s.ReadObject(&m); err != nil {
			t.Fatal(err)
		}
		p := s.takeRequest().Params
		long := p.Long()
		if long.Len() != f.spans {
			t.Fatalf("frame %d: %d spans, want %d", i, long.Len(), f.spans)
		}
		members := func(long jsonscan.Spans) string {
			b := p.Bytes()
			sc := jsonscan.Scanner{B: b, Trusted: true, Long: long}
			top, err := sc.Members(nil)
			if err != nil || len(top) != 2 {
				return fmt.Sprint("params: ", top, err)
			}
			ev := top[1].Value(b)
			sc = jsonscan.Scanner{B: ev, Trusted: true, Long: long}
			inner, err := sc.Members(nil)
			return fmt.Sprint(top, inner, err)
		}
		if with, without := members(long), members(jsonscan.Spans{}); with != without {
			t.Fatalf("frame %d: with spans %s, without %s", i, with, without)
		}
		p.Release()
		if n := p.Long().Len(); n != 0 {
			t.Fatalf("frame %d: released params carry %d spans", i, n)
		}
	}
}

// TestKeptParamsKeepTheirSpans: Keep leaves the bytes to the holder, and
// the spans with them.
func TestKeptParamsKeepTheirSpans(t *testing.T) {
	line := `{"jsonrpc":"2.0","method":"session.event","params":{"t":"` + bigText(1<<20) + `"}}` + "\n"
	s := NewStream(&chunky{b: slices.Repeat([]byte(line), 2), rng: rand.New(rand.NewPCG(26, 2))}, io.Discard, nil, 0, nil)
	var m struct{ Method string }
	if err := s.ReadObject(&m); err != nil {
		t.Fatal(err)
	}
	p := s.takeRequest().Params
	p.Keep()
	if p.Long().Len() != 1 {
		t.Fatalf("kept params carry %d spans, want 1", p.Long().Len())
	}
}

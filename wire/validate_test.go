package wire

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/jsonscan"
)

// sameAsOnePass reads line (large enough to be gathered) through a frame
// reader in reads of chunk bytes, and checks that skeleton answers the
// frame validated while it arrived exactly as it answers the same line
// validated afterwards by the one pass: the same message (method, id,
// params bytes) or the same error reply (code, message, id).
func sameAsOnePass(t *testing.T, line []byte, chunk int) {
	t.Helper()
	fr, err := newFrameReader(&trickle{b: append(bytes.Clone(line), '\n'), n: chunk}, 1<<30).next()
	if err != nil {
		t.Fatal(err)
	}
	if fr.checked == nil {
		t.Fatalf("a %d-byte frame was not validated while it arrived", len(line))
	}
	s := NewStream(bytes.NewReader(nil), io.Discard, nil, 0, nil)
	trimmed := bytes.TrimSpace(fr.line)
	got, gotErr := s.skeleton(fr, trimmed)
	want, wantErr := s.skeleton(frame{line: fr.line}, trimmed)
	if got.inner != nil {
		// What the validator found of the params' members is what a scan
		// of them finds; the one pass leaves that scan to the handler.
		sc := jsonscan.Scanner{B: got.value}
		ms, err := sc.Members(nil)
		if err != nil || fmt.Sprint(ms) != fmt.Sprint(got.inner) {
			t.Fatalf("%.200q…: params' members %v, a scan of them finds %v (%v)", line, got.inner, ms, err)
		}
		got.inner = nil
	} else if got.value != nil && got.value[0] == '{' && got.request && fr.checked.err == nil && len(trimmed) == len(bytes.Trim(fr.line, " \t\r")) {
		t.Fatalf("%.200q…: the params' members were not found while the frame arrived", line)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
		t.Fatalf("%.200q…: validated while arriving %+v %+v, afterwards %+v %+v", line, got, gotErr, want, wantErr)
	}
}

// TestFramesValidatedWhileArrivingAreAnsweredAsBefore: large frames,
// valid and not, with whitespace (JSON's and not) around them and a \r
// before the newline, read in small and large pieces, are answered
// exactly as the one validating pass answers them.
func TestFramesValidatedWhileArrivingAreAnsweredAsBefore(t *testing.T) {
	text := bigText(200 << 10)
	head := `{"jsonrpc":"2.0","id":4,"method":"session.event","params":{"event":{"type":"tool/result","text":"`
	for _, line := range []string{
		head + text + `"}}}`,
		"  \t" + head + text + `"}}}` + " \r",
		"\v" + head + text + `"}}}`,
		head + text + `"}}}` + "\u00a0",
		"\u00a0" + `[` + head + text + `"}}}]`,
		`[` + head + text + `"}}}]`,
		`"` + text + `"`,
		head + text + "\x01" + `"}}}`,
		head + text[:1000] + "\xff" + text + `"}}}`,
		head + text + `\x"}}}`,
		head + text + `"}}`,
		head + text,
		head + text + `"}}},`,
		`{"jsonrpc":"2.0","id":"a","id":5,"method":"m","params":{"t":"` + text + `"}}`,
		`{"jsonrpc":"1.0","id":[1],"method":"m","params":{"t":"` + text + `"}}`,
		`{"jsonrpc":"2.0","id":9,"result":{"t":"` + text + `"}}`,
		`{"jsonrpc":"2.0","method":"m","params":{"t":"` + text + `"},"result":1}`,
	} {
		for _, chunk := range []int{1 << 20, 4099, 7} {
			sameAsOnePass(t, []byte(line), chunk)
		}
	}
}

// FuzzFramesValidatedWhileArriving: any line, behind 70 KiB of leading
// spaces (so it is gathered, and its members' offsets must be moved) or
// inside a long string, read in pieces of any size, is answered as the
// one pass answers it.
//
//	go test -run '^$' -fuzz FuzzFramesValidatedWhileArriving -fuzztime 60s ./wire
func FuzzFramesValidatedWhileArriving(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,"b"]}}`), uint16(5))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"cty_1","result":{"t":"a\tb"}}`), uint16(300))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"\\u12\x01\"}\v"), uint16(1))
	pad := strings.Repeat(" ", 70<<10)
	long := strings.Repeat("x", 70<<10)
	f.Fuzz(func(t *testing.T, in []byte, chunk uint16) {
		if bytes.IndexByte(in, '\n') >= 0 {
			return // one frame only
		}
		n := int(chunk) + 1
		sameAsOnePass(t, append([]byte(pad), in...), n)
		sameAsOnePass(t, []byte(`{"jsonrpc":"2.0","method":"m","params":{"t":"`+long+string(in)+`"}}`), n)
	})
}

// BenchmarkRequestBehindBigFrame times what a request waits behind a
// 17 MiB tool result sent through an os.Pipe after a 1 MiB payload: from the moment the host's
// write of both has returned to the moment the read loop has the request,
// with the result validated while it arrives and, in the same run, after
// it has arrived (as before). It reports the ratio of the medians.
//
//	go test -run '^$' -bench RequestBehindBigFrame ./wire
func BenchmarkRequestBehindBigFrame(b *testing.B) {
	result := []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"event":{"type":"tool/result","text":"` + bigText(17<<20) + `"}}}` + "\n")
	request := []byte(`{"jsonrpc":"2.0","id":1,"method":"agent/request","params":{}}` + "\n")
	// A 1 MiB payload goes before each result, as in a step of DSH's loop
	// (continuity bench's events case): the frame reader's buffer is then
	// sized from it when the result comes.
	payload := []byte(`{"jsonrpc":"2.0","id":2,"method":"llm/payload","params":{"t":"` + bigText(1<<20) + `"}}` + "\n")
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	s := NewStream(inR, io.Discard, nil, 0, nil)
	// The tests' poisoning of released buffers (a 17 MiB memset) is no
	// part of what a request waits for in a real binary.
	defer func(p func([]byte)) { poisonReleased = p }(poisonReleased)
	poisonReleased = nil
	wait := func(while bool) time.Duration {
		checkWhileArriving = while
		done := make(chan time.Time, 1)
		go func() {
			_, _ = inW.Write(payload)
			_, _ = inW.Write(result)
			_, _ = inW.Write(request)
			done <- time.Now()
		}()
		var m struct{ Method string }
		for m.Method != "agent/request" {
			if err := s.ReadObject(&m); err != nil {
				b.Fatal(err)
			}
			s.takeRequest().Params.Release()
		}
		got := time.Now()
		return got.Sub(<-done)
	}
	defer func() { checkWhileArriving = true }()
	var while, after []time.Duration
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		first := rng.IntN(2) == 0 // alternate the order so load hits both alike
		for _, w := range []bool{first, !first} {
			d := wait(w)
			if w {
				while = append(while, d)
			} else {
				after = append(after, d)
			}
		}
	}
	mw, ma := median(while), median(after)
	b.ReportMetric(float64(mw.Microseconds()), "µs-while-arriving")
	b.ReportMetric(float64(ma.Microseconds()), "µs-after")
	b.ReportMetric(float64(mw)/float64(ma), "while/after")
	if testing.Verbose() {
		fmt.Printf("while arriving %v, afterwards %v (%d each)\n", mw, ma, len(while))
	}
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	for i := range s { // insertion sort: a few hundred values
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// TestBigFrameAfterSmallerOnesIsNotJoined: a 6 MiB frame after a 1 MiB
// one (its first buffer sized from the 1 MiB frame) goes on in one
// buffer sized from the last frame beyond bigBlock, handed out in place
// (no join after its newline); every frame, kept, holds its own bytes;
// and each is validated while it arrives.
func TestBigFrameAfterSmallerOnesIsNotJoined(t *testing.T) {
	sizes := []int{1 << 20, 6 << 20, 1 << 20, 6<<20 + 5, 7 << 20, 1 << 20, 3 << 20}
	var input []byte
	var want [][]byte
	for i, n := range sizes {
		f := fmt.Sprintf(`{"jsonrpc":"2.0","method":"m%d","params":{"t":"`, i)
		f += bigText(n-len(f)-4) + `"}}`
		want = append(want, []byte(f))
		input = append(append(input, f...), '\n')
	}
	fr := newFrameReader(&chunky{b: input, rng: rand.New(rand.NewPCG(5, 6))}, 1<<30)
	var got []frame
	for i := range sizes {
		f, err := fr.next()
		if err != nil {
			t.Fatal(err)
		}
		if f.checked == nil || f.checked.err != nil {
			t.Fatalf("frame %d was not validated while it arrived", i)
		}
		got = append(got, f)
	}
	for i, f := range got {
		if !bytes.Equal(f.line, want[i]) {
			t.Fatalf("frame %d does not hold its bytes", i)
		}
	}
	// Frame 3 outgrew its 2 MiB first buffer; it went on in a buffer sized
	// from frame 1 (6 MiB, plus an eighth) and was handed out in it.
	if c, wantCap := cap(got[3].pooled), len(want[1])+len(want[1])/8; c != wantCap {
		t.Fatalf("frame 3 is in a %d-byte buffer, want the %d bytes sized from frame 1", c, wantCap)
	}
}

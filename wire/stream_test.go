package wire

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"
)

// refuse fails every decode, like the library meeting a frame it rejects.
type refuse struct{}

func (*refuse) UnmarshalJSON([]byte) error { return errors.New("refused") }

func TestRefusedFrameForgetsItsParams(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"` + strings.Repeat("a", 1<<16) + `"}}` + "\n"
	var out bytes.Buffer
	s := NewStream(strings.NewReader(in), &out, nil, 0, nil)
	if err := s.ReadObject(&refuse{}); err != io.EOF {
		t.Fatalf("got %v, want EOF after the refused frame", err)
	}
	if _, held := leftOver(s); held != 0 {
		t.Fatalf("%d bytes of the refused frame still held", held)
	}
	if !strings.Contains(out.String(), `"code":-32600`) || !strings.Contains(out.String(), `"id":1`) {
		t.Fatalf("reply %s", out.String())
	}
}

// TestIDsAreIntegersOrStrings: JSON-RPC ids may be any integer (negative,
// beyond 64 bits) or any string; ids with a fraction or an exponent are
// refused (-32600, echoing the id as sent), since no one value would say
// which request a cancellation names.
func TestIDsAreIntegersOrStrings(t *testing.T) {
	for _, c := range []struct {
		id string
		ok bool
	}{
		{`0`, true}, {`7`, true}, {`9223372036854775807`, true}, {`"req_1"`, true},
		{`-5`, true}, {`-0`, true}, {`9223372036854775808`, true}, {`-123456789012345678901234567890`, true},
		{`"a\ud800"`, true}, {`"\u0061"`, true},
		{`1.5`, false}, {`1e3`, false}, {`-2E-1`, false}, {`null`, false}, {`true`, false}, {`{}`, false},
	} {
		line := `{"jsonrpc":"2.0","id":` + c.id + `,"method":"x","params":{}}`
		var out bytes.Buffer
		s := NewStream(strings.NewReader(line+"\n"), &out, nil, 0, nil)
		var v map[string]any
		err := s.ReadObject(&v)
		if c.ok != (err == nil) {
			t.Errorf("id %s: ReadObject = %v, reply %s", c.id, err, out.String())
			continue
		}
		r := s.takeRequest()
		if !c.ok {
			echo := c.id
			if c.id[0] != '"' && (c.id[0] < '0' || c.id[0] > '9') && c.id[0] != '-' {
				echo = "null"
			}
			if !strings.Contains(out.String(), `"code":-32600`) || !strings.Contains(out.String(), `"id":`+echo+`,`) {
				t.Errorf("id %s: reply %s", c.id, out.String())
			}
			if r.Params != nil {
				t.Errorf("id %s: params kept for a refused frame", c.id)
			}
			continue
		}
		if b, _ := r.ID.MarshalJSON(); string(b) != c.id {
			t.Errorf("id %s is echoed as %s", c.id, b)
		}
		if err := s.Reply(r.ID, struct{}{}); err != nil || !strings.Contains(out.String(), `"id":`+c.id+`,`) {
			t.Errorf("id %s: reply %s (%v)", c.id, out.String(), err)
		}
		r.Params.Release()
	}
}

// TestIDsCompareByValue: ids that differ only by a lone surrogate stay
// apart (a UTF-16 host sees three strings; decoding to Go strings would
// make them one), and spellings of one value are one id.
func TestIDsCompareByValue(t *testing.T) {
	key := func(raw string) string {
		t.Helper()
		id, err := ParseID([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return id.Key()
	}
	distinct := []string{`"a\ud800"`, `"a\udbff"`, `"a\ufffd"`, `"a\udc00"`, `"a"`, `1`, `"1"`, `-1`}
	seen := map[string]string{}
	for _, raw := range distinct {
		if other, dup := seen[key(raw)]; dup {
			t.Errorf("%s and %s are one id", raw, other)
		}
		seen[key(raw)] = raw
	}
	for _, same := range [][2]string{{`"a"`, `"\u0061"`}, {`"\ud83d\ude00"`, `"😀"`}, {`0`, `-0`}} {
		if key(same[0]) != key(same[1]) {
			t.Errorf("%s and %s are different ids", same[0], same[1])
		}
	}
}

func TestRequestAndResponseAtOnceIsInvalid(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"x","result":{}}`+"\n"), &out, nil, 0, nil)
	var v map[string]any
	if err := s.ReadObject(&v); err != io.EOF || !strings.Contains(out.String(), `"code":-32600`) {
		t.Fatalf("got %v, reply %s", err, out.String())
	}
}

// TestParamsStayIntactUntilReleased parks the params of three large
// requests: the first is never released, the second is, and the third must
// reuse the second's buffer while the first's bytes stay as they were.
func TestParamsStayIntactUntilReleased(t *testing.T) {
	frameOf := func(c byte) (string, string) {
		params := `{"p":"` + strings.Repeat(string(c), 1<<20) + `"}`
		return `{"jsonrpc":"2.0","id":1,"method":"x","params":` + params + "}\n", params
	}
	// A garbage collection would empty the pool (sync.Pool) mid-test, and
	// a buffer put back on one P is not found from another (it sits in
	// that P's private slot): one P, no collection.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f1, p1 := frameOf('a')
	f2, p2 := frameOf('b')
	f3, p3 := frameOf('c')
	s := NewStream(strings.NewReader(f1+f2+f3), io.Discard, nil, 0, nil)
	take := func(want string) ([]byte, func()) {
		t.Helper()
		var v struct{ Method string }
		if err := s.ReadObject(&v); err != nil {
			t.Fatal(err)
		}
		p := s.takeRequest().Params
		if string(p.Bytes()) != want {
			t.Fatalf("params of %d bytes are not the frame's", len(p.Bytes()))
		}
		return p.Bytes(), p.Release
	}
	b1, _ := take(p1)
	b2, release2 := take(p2)
	release2()
	release2() // a second release must not give the buffer back twice
	b3, _ := take(p3)
	if string(b1) != p1 {
		t.Fatal("unreleased params changed when later frames were read")
	}
	if unsafe.SliceData(b3) != unsafe.SliceData(b2) && !raceEnabled {
		t.Fatal("the released buffer was not reused for the next frame")
	}
}

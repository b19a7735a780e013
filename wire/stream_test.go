package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
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
	if len(s.params) != 0 {
		t.Fatalf("%d parked params left behind", len(s.params))
	}
	if !strings.Contains(out.String(), `"code":-32600`) || !strings.Contains(out.String(), `"id":1`) {
		t.Fatalf("reply %s", out.String())
	}
}

func TestNumericIDsMustBeIntegers(t *testing.T) {
	for _, c := range []struct {
		id string
		ok bool
	}{
		{`0`, true}, {`7`, true}, {`9223372036854775807`, true}, {`"req_1"`, true},
		{`-5`, false}, {`1.5`, false}, {`1e3`, false}, {`9223372036854775808`, false},
	} {
		line := `{"jsonrpc":"2.0","id":` + c.id + `,"method":"x","params":{}}`
		var out bytes.Buffer
		s := NewStream(strings.NewReader(line+"\n"), &out, nil, 0, nil)
		var v map[string]any
		err := s.ReadObject(&v)
		if c.ok != (err == nil) {
			t.Errorf("id %s: ReadObject = %v, reply %s", c.id, err, out.String())
		}
		if !c.ok && (!strings.Contains(out.String(), `"code":-32600`) || !strings.Contains(out.String(), `"id":`+c.id)) {
			t.Errorf("id %s: reply %s", c.id, out.String())
		}
		if len(s.params) > 1 {
			t.Errorf("id %s: params parked for a refused frame", c.id)
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
	// A garbage collection would empty the pool (sync.Pool) mid-test.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	f1, p1 := frameOf('a')
	f2, p2 := frameOf('b')
	f3, p3 := frameOf('c')
	s := NewStream(strings.NewReader(f1+f2+f3), io.Discard, nil, 0, nil)
	take := func(want string) ([]byte, func()) {
		t.Helper()
		var v struct{ Params *json.RawMessage }
		if err := s.ReadObject(&v); err != nil {
			t.Fatal(err)
		}
		b, release := s.TakeParams(v.Params)
		if string(b) != want {
			t.Fatalf("params of %d bytes are not the frame's", len(b))
		}
		return b, release
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

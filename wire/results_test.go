package wire

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// response is a frame answering id with a result of about n bytes.
func response(id string, n int) (frame, result string) {
	result = `{"events":[{"seq":1,"data":{"text":"` + strings.Repeat("x", n) + `"}}],"complete":true}`
	return `{"jsonrpc":"2.0","id":"` + id + `","result":` + result + "}\n", result
}

// answer is what the library decodes from a response, for these tests.
type answer struct {
	ID     json.RawMessage
	Result *json.RawMessage
}

// leftOver reports what the stream still holds: calls awaited and bytes
// counted in flight.
func leftOver(s *Stream) (calls int, held int64) {
	s.mu.Lock()
	calls = len(s.calls)
	s.mu.Unlock()
	held, _ = s.InFlight()
	return calls, held
}

// TestAwaitedResultsArriveAsTheHostsBytes: a large result that answers a
// call we await is kept and handed back whole by Call.Result; a small
// one, one nobody awaits and one whose call was forgotten go to the library
// as they are and leave nothing held.
func TestAwaitedResultsArriveAsTheHostsBytes(t *testing.T) {
	bigFrame, bigResult := response("cty_1", 2*parkResultFrom)
	smallFrame, smallResult := response("cty_2", 10)
	strayFrame, strayResult := response("stray", 2*parkResultFrom)
	lateFrame, lateResult := response("cty_3", 2*parkResultFrom)
	s := NewStream(strings.NewReader(bigFrame+smallFrame+strayFrame+lateFrame), io.Discard, nil, 0, nil)
	c1 := s.Await("cty_1")
	c2 := s.Await("cty_2")
	s.Await("cty_3").Forget() // the caller gave up before the answer came

	read := func() answer {
		t.Helper()
		var m answer
		if err := s.ReadObject(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := read()
	if len(*m.Result) > 100 {
		t.Fatalf("a large awaited result reached the library whole (%d bytes)", len(*m.Result))
	}
	got := c1.Result(*m.Result)
	if string(got.Bytes()) != bigResult {
		t.Fatalf("Result returned %d bytes, want the host's %d", len(got.Bytes()), len(bigResult))
	}
	got.Release()
	if m := read(); string(*m.Result) != smallResult || string(c2.Result(*m.Result).Bytes()) != smallResult {
		t.Fatal("cty_2: a small result changed on its way")
	}
	for _, want := range []string{strayResult, lateResult} {
		if m := read(); string(*m.Result) != want {
			t.Fatalf("the library got %d bytes, want the frame's result", len(*m.Result))
		}
	}
	if c, held := leftOver(s); c != 0 || held != 0 {
		t.Fatalf("left behind: %d calls, %d bytes", c, held)
	}
}

// TestForgetDropsAKeptResult: a caller that gives up after its large
// result was kept leaves nothing behind.
func TestForgetDropsAKeptResult(t *testing.T) {
	f, _ := response("cty_9", 2*parkResultFrom)
	s := NewStream(strings.NewReader(f), io.Discard, nil, 0, nil)
	c := s.Await("cty_9")
	var m answer
	if err := s.ReadObject(&m); err != nil {
		t.Fatal(err)
	}
	if _, held := leftOver(s); held == 0 {
		t.Fatal("the kept result is not counted in flight")
	}
	c.Forget()
	if c, held := leftOver(s); c != 0 || held != 0 {
		t.Fatalf("left behind: %d calls, %d bytes", c, held)
	}
}

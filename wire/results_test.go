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

// message is what the library decodes from a frame, for these tests.
type message struct {
	ID     json.RawMessage
	Result *json.RawMessage
}

// TestAwaitedResultsArriveAsTheHostsBytes: a large result that answers a
// call we await is parked and handed back whole by TakeResult; a small
// one, one nobody awaits and one whose call was forgotten go to the library
// as they are and leave nothing parked.
func TestAwaitedResultsArriveAsTheHostsBytes(t *testing.T) {
	bigFrame, bigResult := response("cty_1", 2*parkResultFrom)
	smallFrame, smallResult := response("cty_2", 10)
	strayFrame, strayResult := response("stray", 2*parkResultFrom)
	lateFrame, lateResult := response("cty_3", 2*parkResultFrom)
	s := NewStream(strings.NewReader(bigFrame+smallFrame+strayFrame+lateFrame), io.Discard, nil, 0, nil)
	s.Await("cty_1")
	s.Await("cty_2")
	s.Await("cty_3")
	s.Forget("cty_3") // the caller gave up before the answer came

	read := func() message {
		t.Helper()
		var m message
		if err := s.ReadObject(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := read()
	if len(*m.Result) > 100 {
		t.Fatalf("a large awaited result reached the library whole (%d bytes)", len(*m.Result))
	}
	got, release := s.TakeResult("cty_1", *m.Result)
	if string(got) != bigResult {
		t.Fatalf("TakeResult returned %d bytes, want the host's %d", len(got), len(bigResult))
	}
	release()
	for _, c := range []struct{ id, want string }{{"cty_2", smallResult}, {"stray", strayResult}, {"cty_3", lateResult}} {
		m := read()
		if string(*m.Result) != c.want {
			t.Fatalf("%s: the library got %d bytes, want the frame's result", c.id, len(*m.Result))
		}
		if got, _ := s.TakeResult(c.id, *m.Result); string(got) != c.want {
			t.Fatalf("%s: TakeResult changed an unparked result", c.id)
		}
	}
	if len(s.params) != 0 || len(s.awaiting) != 0 {
		t.Fatalf("left behind: %d parked, %d awaited", len(s.params), len(s.awaiting))
	}
}

// TestForgetDropsAParkedResult: a caller that gives up after its large
// result was parked leaves nothing behind.
func TestForgetDropsAParkedResult(t *testing.T) {
	f, _ := response("cty_9", 2*parkResultFrom)
	s := NewStream(strings.NewReader(f), io.Discard, nil, 0, nil)
	s.Await("cty_9")
	var m message
	if err := s.ReadObject(&m); err != nil {
		t.Fatal(err)
	}
	s.Forget("cty_9")
	if len(s.params) != 0 || len(s.awaiting) != 0 {
		t.Fatalf("left behind: %d parked, %d awaited", len(s.params), len(s.awaiting))
	}
}

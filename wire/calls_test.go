package wire

import (
	"io"
	"strings"
	"testing"
)

// response is a frame answering id with a result of about n bytes.
func response(id string, n int) (frame, result string) {
	result = `{"events":[{"seq":1,"data":{"text":"` + strings.Repeat("x", n) + `"}}],"complete":true}`
	return `{"jsonrpc":"2.0","id":"` + id + `","result":` + result + "}\n", result
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

// readAll reads s to the end; the frames in these tests are answers, which
// never reach the library.
func readAll(t *testing.T, s *Stream) {
	t.Helper()
	var v struct{ Method string }
	if err := s.ReadObject(&v); err != io.EOF {
		t.Fatalf("ReadObject = %v, want EOF: answers do not reach the library", err)
	}
}

// TestAwaitedAnswersArriveAsTheHostsBytes: results, large and small, that
// answer a call we await are delivered to it whole, as the host's bytes,
// and an error as the host sent it; an answer nobody awaits and one whose
// call was forgotten leave nothing held.
func TestAwaitedAnswersArriveAsTheHostsBytes(t *testing.T) {
	bigFrame, bigResult := response("cty_1", 128<<10)
	smallFrame, smallResult := response("cty_2", 10)
	strayFrame, _ := response("stray", 128<<10)
	lateFrame, _ := response("cty_3", 128<<10)
	errFrame := `{"jsonrpc":"2.0","id":"cty_4","error":{"code":-32000,"message":"no such session","data":{"code":"SESSION_NOT_FOUND"}}}` + "\n"
	s := NewStream(strings.NewReader(bigFrame+smallFrame+strayFrame+lateFrame+errFrame), io.Discard, nil, 0, nil)
	c1 := s.await("cty_1")
	c2 := s.await("cty_2")
	s.await("cty_3").forget() // the caller gave up before the answer came
	c4 := s.await("cty_4")
	readAll(t, s)
	for _, c := range []struct {
		c    *call
		want string
	}{{c1, bigResult}, {c2, smallResult}} {
		<-c.c.answered
		got, err := c.c.take()
		if err != nil || string(got.Bytes()) != c.want {
			t.Fatalf("%s: take gave %d bytes (%v), want the host's %d", c.c.key, len(got.Bytes()), err, len(c.want))
		}
		got.Release()
	}
	<-c4.answered
	if got, err := c4.take(); got != nil || err == nil {
		t.Fatalf("cty_4: %v, %v", got, err)
	} else if re := err.(*RemoteError); re.Code != -32000 || re.Message != "no such session" || string(re.Data) != `{"code":"SESSION_NOT_FOUND"}` {
		t.Fatalf("cty_4: %+v", re)
	}
	if c, held := leftOver(s); c != 0 || held != 0 {
		t.Fatalf("left behind: %d calls, %d bytes", c, held)
	}
}

// TestForgetDropsADeliveredResult: a caller that gives up after its large
// result was delivered leaves nothing behind.
func TestForgetDropsADeliveredResult(t *testing.T) {
	f, _ := response("cty_9", 128<<10)
	s := NewStream(strings.NewReader(f), io.Discard, nil, 0, nil)
	c := s.await("cty_9")
	readAll(t, s)
	if _, held := leftOver(s); held == 0 {
		t.Fatal("the delivered result is not counted in flight")
	}
	c.forget()
	if c, held := leftOver(s); c != 0 || held != 0 {
		t.Fatalf("left behind: %d calls, %d bytes", c, held)
	}
}

package wire

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// leftOver reports what the stream still holds for awaited results.
func leftOver(s *Stream) (parked, awaited int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.params), len(s.awaiting)
}

// TestForgetRacesTheAnswer: a caller gives up while its large answer
// is being read. Whichever comes first, nothing stays parked or awaited,
// and an answer parked before the Forget reaches the library as a token
// only (the frame went back with the Forget, never twice).
func TestForgetRacesTheAnswer(t *testing.T) {
	pr, pw := io.Pipe()
	s := NewStream(pr, io.Discard, nil, 0, nil)
	const n = 200
	go func() {
		for i := range n {
			f, _ := response(fmt.Sprintf("cty_%x", i), 2*parkResultFrom)
			if _, err := io.WriteString(pw, f); err != nil {
				return
			}
		}
		pw.Close()
	}()
	for i := range n {
		id := fmt.Sprintf("cty_%x", i)
		s.Await(id)
		var wg sync.WaitGroup
		wg.Go(func() { s.Forget(id) })
		var m message
		if err := s.ReadObject(&m); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if p, a := leftOver(s); p != 0 || a != 0 {
			t.Fatalf("answer %d: left behind %d parked, %d awaited", i, p, a)
		}
	}
}

// answerMsg is what the library decodes from a response: like jsonrpc2's
// Response, a non-object error fails the decode.
type answerMsg struct {
	ID     json.RawMessage
	Result *json.RawMessage
	Error  *struct{ Code int }
}

// TestOddAnswersLeaveNothing: a duplicate answer, an answer that
// comes before its call is pending, an answer with an escaped id, and a
// parked answer the decoder then refuses all end with nothing parked once
// each caller has taken its result or given up.
func TestOddAnswersLeaveNothing(t *testing.T) {
	big := func(id string) (string, string) { return response(id, 2*parkResultFrom) }
	f1, res1 := big("cty_1")
	f2, res2 := big("cty_2")
	f3, res3 := big("cty_3")
	_, res4 := big("cty_4")
	f5, res5 := big("cty_5")
	refused := `{"jsonrpc":"2.0","id":"cty_4","result":` + res4 + `,"error":"x"}` + "\n"
	escaped := strings.Replace(f3, `"cty_3"`, `"cty\u005f3"`, 1)
	s := NewStream(strings.NewReader(f1+f1+f2+f2+escaped+refused+f5), io.Discard, nil, 0, nil)
	for _, id := range []string{"cty_1", "cty_2", "cty_3", "cty_4", "cty_5"} {
		s.Await(id)
	}
	next := func() answerMsg {
		t.Helper()
		var m answerMsg
		if err := s.ReadObject(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	take := func(id string, m answerMsg, want string) {
		t.Helper()
		got, release := s.TakeResult(id, *m.Result)
		if string(got) != want {
			t.Fatalf("%s: TakeResult gave %d bytes, want the host's %d", id, len(got), len(want))
		}
		release()
		release()
	}
	take("cty_1", next(), res1)
	if dup := next(); string(*dup.Result) != res1 {
		t.Fatal("cty_1's duplicate was parked though nobody awaits it any more")
	}
	next() // cty_2 parked; the library drops it (in jsonrpc2 no call is pending yet)
	take("cty_2", next(), res2)
	take("cty_3", next(), res3) // not parked: the id is not spelled as ours
	take("cty_5", next(), res5) // cty_4's frame was refused and skipped
	s.Forget("cty_4")           // its caller gives up
	if p, a := leftOver(s); p != 0 || a != 0 {
		t.Fatalf("left behind %d parked, %d awaited", p, a)
	}
}

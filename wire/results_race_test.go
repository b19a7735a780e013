package wire

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// TestForgetRacesTheAnswer: a caller gives up while its large answer
// is being read. Whichever comes first, nothing stays held or awaited.
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
		c := s.Await(id)
		var wg sync.WaitGroup
		wg.Go(c.Forget)
		var m message
		if err := s.ReadObject(&m); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if c, held := leftOver(s); c != 0 || held != 0 {
			t.Fatalf("answer %d: left behind %d calls, %d bytes", i, c, held)
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
// comes before the library's call is pending, an answer with an escaped
// id, and an answer the decoder refuses all end with nothing held once
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
	calls := map[string]*Call{}
	for _, id := range []string{"cty_1", "cty_2", "cty_3", "cty_4", "cty_5"} {
		calls[id] = s.Await(id)
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
		got := calls[id].Result(*m.Result)
		if string(got.Bytes()) != want {
			t.Fatalf("%s: Result gave %d bytes, want the host's %d", id, len(got.Bytes()), len(want))
		}
		got.Release()
		got.Release()
	}
	take("cty_1", next(), res1)
	if dup := next(); string(*dup.Result) != res1 {
		t.Fatal("cty_1's duplicate was kept though nobody awaits it any more")
	}
	m2 := next() // cty_2 kept (in jsonrpc2 no call would be pending yet: dropped)
	if dup := next(); string(*dup.Result) != res2 {
		t.Fatal("cty_2's second answer was kept over the first")
	}
	take("cty_2", m2, res2)
	take("cty_3", next(), res3) // kept too: the id's value is ours, however spelled
	take("cty_5", next(), res5) // cty_4's frame was refused and skipped
	calls["cty_4"].Forget()     // its caller gives up
	if c, held := leftOver(s); c != 0 || held != 0 {
		t.Fatalf("left behind %d calls, %d bytes", c, held)
	}
}

package wire

import (
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
	for i := range n {
		id := fmt.Sprintf("cty_%x", i)
		c := s.await(id)
		f, _ := response(id, 128<<10)
		var wg sync.WaitGroup
		wg.Go(c.forget)
		wg.Go(func() {
			// The request behind the answer proves the answer was handled
			// once ReadObject returns it.
			_, _ = io.WriteString(pw, f+`{"jsonrpc":"2.0","method":"sync"}`+"\n")
		})
		var m struct{ Method string }
		if err := s.ReadObject(&m); err != nil || m.Method != "sync" {
			t.Fatalf("ReadObject = %v, %q", err, m.Method)
		}
		wg.Wait()
		s.takeRequest().Params.Release()
		if c, held := leftOver(s); c != 0 || held != 0 {
			t.Fatalf("answer %d: left behind %d calls, %d bytes", i, c, held)
		}
	}
	pw.Close()
}

// TestOddAnswersLeaveNothing: a duplicate answer, an answer with an
// escaped id, an answer the stream refuses and one whose error is not an
// error object all end with nothing held once each caller has taken its
// answer or given up; the first answer of a duplicate pair wins.
func TestOddAnswersLeaveNothing(t *testing.T) {
	big := func(id string) (string, string) { return response(id, 128<<10) }
	f1, res1 := big("cty_1")
	f2, _ := big("cty_2")
	f3, res3 := big("cty_3")
	_, res4 := big("cty_4")
	f5, res5 := big("cty_5")
	refused := `{"jsonrpc":"2.0","id":"cty_4","result":` + res4 + `,"error":"x"}` + "\n"
	badErr := `{"jsonrpc":"2.0","id":"cty_6","error":"not an object"}` + "\n"
	escaped := strings.Replace(f3, `"cty_3"`, `"cty\u005f3"`, 1)
	second := strings.Replace(f1, `"x`, `"y`, 1)
	s := NewStream(strings.NewReader(f1+second+f2+escaped+refused+badErr+f5), io.Discard, nil, 0, nil)
	calls := map[string]*call{}
	for _, id := range []string{"cty_1", "cty_3", "cty_4", "cty_5", "cty_6"} {
		calls[id] = s.await(id)
	}
	readAll(t, s) // cty_2 is awaited by nobody: dropped
	take := func(id, want string) {
		t.Helper()
		<-calls[id].answered
		got, err := calls[id].take()
		if err != nil || string(got.Bytes()) != want {
			t.Fatalf("%s: take gave %d bytes (%v), want the host's %d", id, len(got.Bytes()), err, len(want))
		}
		got.Release()
		got.Release()
	}
	take("cty_1", res1)
	take("cty_3", res3) // the id's value is ours, however spelled
	take("cty_5", res5) // cty_4's frame was refused and skipped
	for _, id := range []string{"cty_4", "cty_6"} {
		select {
		case <-calls[id].answered:
			t.Fatalf("%s was answered by a frame the stream refuses", id)
		default:
		}
		calls[id].forget() // its caller gives up
	}
	if c, held := leftOver(s); c != 0 || held != 0 {
		t.Fatalf("left behind %d calls, %d bytes", c, held)
	}
}

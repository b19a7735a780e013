package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// trickle returns at most n bytes per read, like a pipe under load.
type trickle struct {
	b []byte
	n int
}

func (r *trickle) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[k:]
	return k, nil
}

// FuzzStream feeds arbitrary bytes, in reads of arbitrary size and under an
// arbitrary frame limit, to a Stream and checks docs/design.md §6 for frames:
// no panic, every line the Stream writes (its own error replies) is JSON,
// the params handed to a handler are exactly bytes of the input and valid
// JSON, ids are echoed as sent, and once everything is released and the
// calls of ours it may answer are forgotten, nothing is held or due. The
// seeds include the hostile shapes: huge and odd numbers (as ids and in
// params), lone surrogates, duplicate members, and large answers to our
// calls (kept as the host's bytes).
//
//	go test -run '^$' -fuzz FuzzStream -fuzztime 60s ./wire
func FuzzStream(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,"b"]}}`+"\n"), uint8(5), uint16(400))
	f.Add([]byte("not json\n[1]\n{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"result\":{}}\r\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}"), uint8(0), uint16(30))
	f.Add([]byte(`{"jsonrpc":"2.0","id":-1,"method":"x","params":{}}`+"\n"+`{"id":2,"id":3}`+"\n"), uint8(200), uint16(1000))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1e1000001,"method":"x"}`+"\n"+`{"jsonrpc":"2.0","id":-0,"method":"x","params":{"seq":1e1000001,"n":-123456789012345678901234567890.5e-7}}`+"\n"), uint8(17), uint16(500))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a\ud800","method":"x","params":{"s":"\udbff\ud800\udc00"}}`+"\r\n"+`{"jsonrpc":"2.0","id":"a\udbff","method":"x"}`+"\n"), uint8(3), uint16(200))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"a":2}}`+"\n"+`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"x"}`+"\n"+`{"jsonrpc":"2.0","id":1,"method":"x","params":{},"params":[]}`+"\n"), uint8(9), uint16(300))
	big := `{"jsonrpc":"2.0","id":"cty_1","result":{"text":"` + strings.Repeat("x", (64<<10)) + `"}}` + "\n"
	f.Add([]byte(big+big+`{"jsonrpc":"2.0","id":"cty\u005f2","result":{"a":1},"error":{"code":1}}`+"\n"), uint8(255), uint16(65535))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8, limit uint16) {
		var out bytes.Buffer
		s := NewStream(&trickle{b: in, n: int(chunk) + 1}, &out, nil, int64(limit)+1, nil)
		// Calls of ours that answers in the input may meet: one sent, one
		// not yet; both end with Forget, which must leave nothing held.
		sent := s.await("cty_1")
		sent.markSent()
		unsent := s.await("cty_2")
		for {
			var m struct{ Method string }
			if err := s.ReadObject(&m); err != nil {
				break
			}
			r := s.takeRequest()
			if !r.ID.IsZero() {
				if id, _ := r.ID.MarshalJSON(); !json.Valid(id) || !bytes.Contains(in, id) {
					t.Fatalf("id %q is not valid JSON taken from the input", id)
				}
			}
			if p := r.Params.Bytes(); p != nil && (!json.Valid(p) || !bytes.Contains(in, p)) {
				t.Fatalf("params %q are not valid JSON taken from the input", p)
			}
			r.Params.Release()
		}
		sent.forget()
		unsent.forget()
		if c, _ := leftOver(s); c != 0 || s.budget.due != 0 {
			t.Fatalf("%d calls still awaited, %d counted as due", c, s.budget.due)
		}
		for _, line := range bytes.Split(out.Bytes(), []byte{'\n'}) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("the stream wrote a line that is not JSON: %q", line)
			}
		}
		if _, held := leftOver(s); held != 0 {
			t.Fatalf("%d bytes still held", held)
		}
	})
}

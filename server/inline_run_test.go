package server

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/wire"
)

// TestRunInlineHoldsNoticesUntilTheReplyIsWritten: an inline request runs
// with the notices held, and the hold ends only once its reply is on the
// wire; a request whose id is still running elsewhere is refused without
// running.
func TestRunInlineHoldsNoticesUntilTheReplyIsWritten(t *testing.T) {
	var out bytes.Buffer
	d := &dispatcher{stream: wire.NewStream(strings.NewReader(""), &out, nil, 1<<20, zap.NewNop()), log: zap.NewNop(),
		base: context.Background(), inflight: map[string]*inflight{}}
	held, released := false, ""
	d.quiet = func() func() {
		held = true
		return func() {
			held = false
			released = out.String()
		}
	}
	ran := false
	anything := func(*wire.Params) (struct{}, error) { return struct{}{}, nil }
	m := request(anything, func(context.Context, struct{}) (any, error) {
		ran = true
		if !held {
			t.Error("the handler ran without the notices held")
		}
		return map[string]int{"n": 1}, nil
	}).entry(inline)
	call, err := m.read(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := wire.ParseID([]byte("7"))
	if err != nil {
		t.Fatal(err)
	}
	d.runInline(id, m, call, nil)
	if !ran || held || released != `{"jsonrpc":"2.0","id":7,"result":{"n":1}}`+"\n" {
		t.Fatalf("ran %v, held after %v, written at release %q", ran, held, released)
	}

	out.Reset()
	ran = false
	d.inflight[id.Key()] = &inflight{method: "agent/request", cancel: func(error) {}}
	d.runInline(id, m, call, nil)
	if ran || !strings.Contains(out.String(), `"id":7,"error":{"code":-32600`) {
		t.Fatalf("a duplicate id: ran %v, answered %q", ran, out.String())
	}
}

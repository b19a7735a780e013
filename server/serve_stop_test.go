package server_test

import (
	"context"
	"io"
	"testing"

	"github.com/continuity-dev/continuity/internal/syncbuf"
	"github.com/continuity-dev/continuity/server"
)

// TestNothingIsDispatchedAfterServeReturns: once Serve has returned (here
// after shutdown, with stdin still open), frames the host still writes
// take no effect: a request the read loop would refuse at once (an
// unknown method) gets no answer, a malformed line no parse error, and a
// notification is not applied. Each write returns only once the read
// loop has taken its bytes, so the last write proves the ones before it
// were handled.
func TestNothingIsDispatchedAfterServeReturns(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	var out syncbuf.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.Serve(context.Background(), server.Config{In: inR, Out: &out, DataDir: t.TempDir()})
	}()
	write := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","id":1,"method":"no/such"}`)
	write(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	<-done
	before := out.String()
	const wantBefore = `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: no/such"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	if before != wantBefore {
		t.Fatalf("before Serve returned the plugin wrote %q, want %q", before, wantBefore)
	}
	write(`not json`)
	write(`{"jsonrpc":"2.0","id":3,"method":"no/such"}`)
	write(`{"jsonrpc":"2.0","method":"session.event","params":{}}`)
	write(`{"jsonrpc":"2.0","id":4,"method":"no/such"}`)
	if after := out.String(); after != before {
		t.Fatalf("after Serve returned the plugin wrote %q", after[len(before):])
	}
}

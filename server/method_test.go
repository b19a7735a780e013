package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/wire"
)

// paramsOf is raw as the params of a request the stream read, owned by
// the caller as the dispatcher owns them.
func paramsOf(t *testing.T, raw string) *wire.Params {
	t.Helper()
	got := make(chan *wire.Params, 1)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"m","params":` + raw + "}\n")
	conn := wire.NewConn(wire.Config{In: in, Out: io.Discard, Log: zap.NewNop()}, wire.HandlerFunc(func(req wire.Request) { got <- req.Params }))
	conn.Start()
	defer conn.Close()
	select {
	case p := <-got:
		return p
	case <-conn.Done():
		select { // the handler runs before input's end closes Done
		case p := <-got:
			return p
		default:
		}
		t.Fatalf("the connection ended before the request %s was read", raw)
		return nil
	}
}

// readEntry reads params as the dispatcher does and, for an entry that
// reads on the request's goroutine (deferred), runs it far enough to read.
// A read that wrongly succeeds reaches a handler without services, which
// panics; that is reported as the read's success.
func readEntry(m method, params *wire.Params) (err error) {
	call, err := m.read(params)
	if err != nil {
		return err
	}
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	_, err = call.run(context.Background())
	return err
}

// TestEveryEntryRefusesADuplicatedMember holds the table to one
// duplicate-key rule (internal/strictjson's): every method whose params
// are read refuses a member name given twice, at the top or one level
// down, naming the name: a request with -32602, a notification with the
// reason its drop is logged with. shutdown reads no member (its schema
// says any members are ignored) and is the one exception.
func TestEveryEntryRefusesADuplicatedMember(t *testing.T) {
	table := (&Server{}).methodTable()
	for _, doc := range []string{
		`{"sessionId":"s","event":{"type":"t","seq":1},"x":1,"x\u0020":0,"x":2}`,
		`{"sessionId":"s","event":{"type":"t","seq":1,"s\u0065q":2}}`,
	} {
		for name, m := range table {
			if name == "shutdown" {
				continue
			}
			err := readEntry(m, paramsOf(t, doc))
			var pe *protocolError
			request := !m.flags.has(notification)
			if err == nil || !strings.Contains(err.Error(), "appears more than once") ||
				request && (!errors.As(err, &pe) || pe.code != wire.CodeInvalidParams) {
				t.Errorf("%s %s: %v, want a refusal naming the duplicated member (-32602 for a request)", name, doc, err)
			}
		}
	}
}

// view of b's memory in raw: the offset of b's first byte, or -1 when b
// was copied.
func offsetIn(raw, b []byte) int {
	for i := range raw {
		if &raw[i] == &b[0] {
			return i
		}
	}
	return -1
}

// TestLargeMemberIsPassedOnAsAView: llm/payload's payload and
// remote/invoke's args reach their handlers as the frame's own bytes,
// never decoded or copied, and each method keeps its rule for a member
// that is not an object.
func TestLargeMemberIsPassedOnAsAView(t *testing.T) {
	big := `{"input":[` + strings.Repeat(`{"type":"message","content":"x"},`, 1000) + `{}]}`
	pp := paramsOf(t, `{"requestId":"r","sessionId":"s","turn":1,"step":1,"provider":"openai","model":"m","payload":`+big+`}`)
	p, err := readPayloadParams(pp)
	if err != nil {
		t.Fatal(err)
	}
	if string(p.payload) != big || offsetIn(pp.Bytes(), p.payload) < 0 || p.frame != pp || p.req.Purpose != "chat" {
		t.Fatalf("payload: copied or wrong (%d bytes, purpose %q)", len(p.payload), p.req.Purpose)
	}
	_, err = readPayloadParams(paramsOf(t, `{"requestId":"r","sessionId":"s","turn":1,"step":1,"provider":"openai","model":"m","payload":[1]}`))
	if diag.CodeOf(err) != diag.InvalidPayload {
		t.Fatalf("a payload that is not an object: %v, want %s", err, diag.InvalidPayload)
	}

	ip := paramsOf(t, `{"namespace":"continuity","method":"notices","args":`+big+`}`)
	inv, err := readInvokeParams(ip)
	if err != nil {
		t.Fatal(err)
	}
	if string(inv.Args) != big || offsetIn(ip.Bytes(), inv.Args) < 0 || inv.Namespace != "continuity" || inv.Method != "notices" {
		t.Fatalf("args: copied or wrong (%d bytes, %s/%s)", len(inv.Args), inv.Namespace, inv.Method)
	}
	for _, args := range []string{``, `,"args":null`} {
		inv, err := readInvokeParams(paramsOf(t, `{"namespace":"continuity","method":"notices"`+args+`}`))
		if err != nil || !bytes.Equal(inv.Args, []byte("{}")) {
			t.Fatalf("args %q: %v %s, want {}", args, err, inv.Args)
		}
	}
	_, err = readInvokeParams(paramsOf(t, `{"namespace":"continuity","method":"notices","args":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "/args") {
		t.Fatalf("args that are not an object: %v, want the schema naming /args", err)
	}
}

// TestLargeParamsAreReadOffTheReadLoop: the read loop only checks that
// llm/payload's and llm/payloadDigest's params are an object, and their
// full read is the handler's (answered -32602 all the same); remote/invoke
// is read once, in the read loop, and a failure never reaches a handler.
func TestLargeParamsAreReadOffTheReadLoop(t *testing.T) {
	table := (&Server{}).methodTable()
	for _, name := range []string{"llm/payload", "llm/payloadDigest"} {
		m := table[name]
		if _, err := m.read(paramsOf(t, `[1]`)); err == nil || err.Error() != "invalid params: params must be an object" {
			t.Errorf("%s: an array passed the read loop's check (%v)", name, err)
		}
		call, err := m.read(paramsOf(t, `{"requestId":1}`))
		if err != nil {
			t.Fatalf("%s: the read loop read the params: %v", name, err)
		}
		var pe *protocolError
		if _, err := call.run(context.Background()); !errors.As(err, &pe) || pe.code != wire.CodeInvalidParams || !strings.Contains(err.Error(), "missing properties") {
			t.Errorf("%s: the handler's read answered %v, want -32602 naming the missing members", name, err)
		}
	}
	if _, err := table["remote/invoke"].read(paramsOf(t, `{"namespace":"continuity"}`)); err == nil || !strings.Contains(err.Error(), "method") {
		t.Errorf("remote/invoke without a method passed the read loop: %v", err)
	}
}

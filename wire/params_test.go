package wire

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// bigRequest is a request frame whose params (about 1 MiB) are gathered in
// a pool buffer.
func bigRequest(id string, c byte) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"m","params":{"p":"` + strings.Repeat(string(c), 1<<20) + `"}}` + "\n"
}

// keeper is a handler that, like a future handler with a bug, keeps its
// params past its reply: it answers, its params are released (as the
// dispatcher does once the reply is written), and it reads them later.
type keeper struct {
	s        *Stream
	kept     chan *Params
	keptView chan []byte
}

func (k keeper) Handle(_ context.Context, _ *jsonrpc2.Conn, _ *jsonrpc2.Request) {
	in := k.s.takeRequest()
	view := in.Params.Bytes()
	if err := k.s.Reply(in.ID, struct{}{}); err != nil {
		panic(err)
	}
	in.Params.Release()
	k.kept <- in.Params
	k.keptView <- view
}

// TestParamsKeptPastTheReplyAreCaught: a handler that keeps its params
// past its reply fails where it uses them: Bytes panics, and a slice it
// took before (which a later frame's bytes would otherwise fill) reads as
// poison in tests at once.
func TestParamsKeptPastTheReplyAreCaught(t *testing.T) {
	pr, pw := io.Pipe()
	s := NewStream(pr, io.Discard, nil, 0, nil)
	k := keeper{s: s, kept: make(chan *Params, 1), keptView: make(chan []byte, 1)}
	conn := jsonrpc2.NewConn(context.Background(), s, k)
	defer conn.Close()
	go func() { _, _ = io.WriteString(pw, bigRequest("k1", 'a')) }()
	p, view := <-k.kept, <-k.keptView

	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "after Release") {
				t.Fatalf("Bytes after Release: recovered %v, want a panic", r)
			}
		}()
		_ = p.Bytes()
		t.Fatal("Bytes after Release returned")
	}()
	if !bytes.Contains(view, []byte{0xFF, 0xFF, 0xFF, 0xFF}) || bytes.Contains(view, []byte("aaaa")) {
		t.Fatalf("a slice kept past Release still reads the frame: %.40q", view)
	}
}

// TestBeforeReleaseRunsWhileTheBytesHold: what a result registers with
// BeforeRelease sees the params intact, runs once, and runs before the
// buffer can carry another frame; Keep runs it too but leaves the bytes.
func TestBeforeReleaseRunsWhileTheBytesHold(t *testing.T) {
	s := NewStream(strings.NewReader(bigRequest("r1", 'a')+bigRequest("r2", 'b')), io.Discard, nil, 0, nil)
	take := func() *Params {
		var v struct{ Method string }
		if err := s.ReadObject(&v); err != nil {
			t.Fatal(err)
		}
		return s.takeRequest().Params
	}
	p := take()
	var copied []byte
	runs := 0
	p.BeforeRelease(func() { runs++; copied = bytes.Clone(p.b) })
	want := string(p.Bytes())
	p.Release()
	p.Release()
	if runs != 1 || string(copied) != want {
		t.Fatalf("BeforeRelease ran %d times, copy intact: %v", runs, string(copied) == want)
	}
	q := take()
	kept := q.Bytes()
	runs = 0
	q.BeforeRelease(func() { runs++ })
	q.Keep()
	if runs != 1 || !bytes.Contains(q.Bytes(), []byte("bbbb")) || !bytes.Equal(kept, q.Bytes()) {
		t.Fatal("Keep must run BeforeRelease and leave the bytes to their holder")
	}
	if _, held := leftOver(s); held != 0 {
		t.Fatalf("%d bytes still counted in flight", held)
	}
}

// TestUntakenParamsAreReleased: params nobody took (a handler that never
// asked for them) are released when the next frame is read.
func TestUntakenParamsAreReleased(t *testing.T) {
	s := NewStream(strings.NewReader(bigRequest("u1", 'a')), io.Discard, nil, 0, nil)
	var v struct{ Method string }
	if err := s.ReadObject(&v); err != nil {
		t.Fatal(err)
	}
	if _, held := leftOver(s); held == 0 {
		t.Fatal("the delivered params are not counted in flight")
	}
	if err := s.ReadObject(&v); err != io.EOF {
		t.Fatal(err)
	}
	if _, held := leftOver(s); held != 0 {
		t.Fatalf("%d bytes still held", held)
	}
}

// TestRawResultIsWrittenAsItIs: a RawResult's borrowed parts reach the
// pipe byte for byte (spacing, escapes and key order as the host sent
// them), and a member without bytes is an error, not invalid JSON.
func TestRawResultIsWrittenAsItIs(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, nil, 0, nil)
	id, _ := ParseID([]byte(`"r\u0031"`))
	r, err := Object().Set("outcome", "filtered").Raw("payload", []byte(`{ "b" :1,`), []byte(` "a":"<\u00e9>" }`)).Set("n", 2).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Reply(id, r); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":"r\u0031","result":{"outcome":"filtered","payload":{ "b" :1, "a":"<\u00e9>" },"n":2}}` + "\n"
	if out.String() != want {
		t.Fatalf("wrote %s\nwant  %s", out.String(), want)
	}
	if _, err := Object().Raw("config", nil, []byte{}).Result(); err == nil {
		t.Fatal("a member without bytes was accepted")
	}
}

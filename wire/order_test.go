package wire

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// bigText is a tool output of n bytes in the shape a host sends (escaped
// tabs and newlines every few words), as one JSON string's content.
func bigText(n int) string {
	line := `ok   \tgithub.com/example/pkg/sub\t0.123s coverage: 81.2% of statements\n`
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// TestEffectsKeepTheHostsOrderAroundBigFrames: events and requests
// interleaved with 17 MiB tool results, a cancellation right behind a big
// result, an answer to a call of ours between them, and a malformed big
// frame followed by valid ones take effect exactly in the order the host
// sent them: each frame's handler call (or the Stream's own error reply
// and lost-frame mark) happens before anything of the next frame. Whatever
// validates a big frame, and wherever, must keep this.
func TestEffectsKeepTheHostsOrderAroundBigFrames(t *testing.T) {
	text := bigText(17 << 20)
	result := func(seq int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session.event","params":{"seq":%d,"event":{"type":"tool/result","text":"%s"}}}`, seq, text)
	}
	malformed := `{"jsonrpc":"2.0","method":"session.event","params":{"text":"` + text + "\x01" + `"}}`
	inR, inW := io.Pipe()
	var out lockedBuffer
	var mu sync.Mutex
	var effects []string
	effect := func(s string) {
		mu.Lock()
		effects = append(effects, s)
		mu.Unlock()
	}
	var conn *Conn
	requested := make(chan struct{})
	var once sync.Once
	sent := writerFunc(func(b []byte) (int, error) {
		if strings.Contains(string(b), `"session/read"`) {
			once.Do(func() { close(requested) })
		}
		return out.Write(b)
	})
	conn = NewConn(Config{In: inR, Out: sent, OnLostFrame: func() { effect("lost") }}, HandlerFunc(func(r Request) {
		id, _ := r.ID.MarshalJSON()
		name := r.Method
		if r.IsCall() {
			name += "#" + string(id)
			_ = conn.Reply(r.ID, struct{}{})
		}
		if r.Method == "session.event" {
			var seq int
			if _, err := fmt.Sscanf(string(r.Params.Bytes()), `{"seq":%d`, &seq); err == nil {
				name += fmt.Sprintf("@%d", seq)
			}
			if seq == 3 {
				// The answer before this frame is delivered already (its
				// caller may not have run yet).
				conn.stream.mu.Lock()
				if c := conn.stream.calls["scty_1"]; c == nil || c.delivered {
					effect("answered")
				}
				conn.stream.mu.Unlock()
			}
		}
		r.Params.Release()
		effect(name)
	}))
	conn.Start()
	defer conn.Close()

	// One call of ours, answered between two big results.
	answered := make(chan error, 1)
	go func() {
		res, err := conn.Call(context.Background(), "session/read", nil)
		if err == nil && string(res.Bytes()) != `{"events":[]}` {
			err = fmt.Errorf("answer %q", res.Bytes())
		}
		res.Release()
		answered <- err
	}()
	frames := []string{
		`{"jsonrpc":"2.0","method":"step/start","params":{}}`,
		result(1),
		`{"jsonrpc":"2.0","id":1,"method":"agent/request","params":{}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`,
		result(2),
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`,
		`{"jsonrpc":"2.0","id":"cty_1","result":{"events":[]}}`,
		result(3),
		malformed,
		`{"jsonrpc":"2.0","id":3,"method":"llm/payload","params":{}}`,
		result(4),
		`{"jsonrpc":"2.0","method":"step/end","params":{}}`,
	}
	<-requested // the call is awaited before the host can answer it
	go func() {
		for _, f := range frames {
			if _, err := io.WriteString(inW, f+"\n"); err != nil {
				return
			}
		}
		inW.Close()
	}()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("our call: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("our call was never answered")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	select {
	case <-conn.stopped:
	case <-ctx.Done():
		t.Fatal("the read loop did not reach the end of input")
	}
	want := []string{
		"step/start", "session.event@1", "agent/request#1", "$/cancelRequest", "session.event@2",
		"$/cancelRequest", "answered", "session.event@3", "lost", "llm/payload#3", "session.event@4", "step/end",
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(effects, " ") != strings.Join(want, " ") {
		t.Fatalf("effects\n %q\nwant\n %q", effects, want)
	}
	// The malformed frame's parse error is written before the reply to the
	// request behind it, as the host sent them.
	o := out.String()
	parse, reply := strings.Index(o, `"code":-32700`), strings.Index(o, `"id":3,"result"`)
	if parse < 0 || reply < 0 || parse > reply || strings.Index(o, `"id":1,"result"`) > parse {
		t.Fatalf("replies out of order: %q", o)
	}
}

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

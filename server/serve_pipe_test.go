package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/server"
)

// pipePlugin runs server.Serve in this process over two pipes, so the race
// detector of `go test -race` sees the read loop, the dispatcher and the
// handlers together.
type pipePlugin struct {
	in    *io.PipeWriter
	out   *bufio.Reader
	done  chan struct{}
	ended time.Time // when Serve returned
}

func servePipe(t *testing.T, dataDir string) *pipePlugin {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipePlugin{in: inW, out: bufio.NewReader(outR), done: make(chan struct{})}
	go func() {
		server.Serve(context.Background(), server.Config{In: inR, Out: outW, DataDir: dataDir})
		p.ended = time.Now()
		outW.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // replies still being written
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after its input closed")
		}
	})
	return p
}

func (p *pipePlugin) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// reply reads the next frame, which must answer id.
func (p *pipePlugin) reply(t *testing.T, id int) map[string]json.RawMessage {
	t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the reply to %d: %v", id, err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("reply %q: %v", line, err)
	}
	var got int
	if json.Unmarshal(m["id"], &got) != nil || got != id {
		t.Fatalf("reply %s does not answer id %d", line, id)
	}
	return m
}

const pipeInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1","host":{"name":"pipe","version":"1"},"capabilities":{}}}`

// The first frame is read only once everything its handler uses is wired:
// an initialize already waiting in the pipe when Serve starts is served
// (under -race, a handler reading the connection or the host client before
// Serve stored them is reported as a race).
func TestServeWiresBeforeReading(t *testing.T) {
	for range 5 {
		p := servePipe(t, t.TempDir())
		p.send(t, pipeInitialize)
		m := p.reply(t, 1)
		var res struct {
			Activation struct{ State string } `json:"activation"`
		}
		if err := json.Unmarshal(m["result"], &res); err != nil || res.Activation.State != "ready" {
			t.Fatalf("initialize answered %s %s", m["result"], m["error"])
		}
		p.send(t, `{"jsonrpc":"2.0","id":2,"method":"remote/invoke","params":{"namespace":"githubCopilotSessionContinuation","method":"defaults"}}`)
		if r := p.reply(t, 2); r["error"] != nil {
			t.Fatalf("remote/invoke: %s", r["error"])
		}
	}
}

// Serve returns within ExitWithin of its input ending.
func TestServeReturnsWithinExitPromise(t *testing.T) {
	p := servePipe(t, t.TempDir())
	p.send(t, pipeInitialize)
	p.reply(t, 1)
	closed := time.Now()
	p.in.Close()
	go io.Copy(io.Discard, p.out)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	if took := p.ended.Sub(closed); took > server.ExitWithin {
		t.Fatalf("Serve returned %v after EOF, promised %v", took, server.ExitWithin)
	}
}

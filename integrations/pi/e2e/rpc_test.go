package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// rpcPi is pi in RPC mode (`pi --mode rpc`): commands on stdin, events and
// extension UI requests on stdout, one JSON object per line. ctx.hasUI is
// true there, so the extension's selectors arrive as extension_ui_request.
type rpcPi struct {
	t      *testing.T
	stdin  io.WriteCloser
	mu     sync.Mutex
	lines  []map[string]any
	cursor int
	more   chan struct{}
	done   chan struct{}
}

func (r *rig) rpc(acct string) *rpcPi {
	r.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	args := []string{r.line.cli, "-e", filepath.Join(packageDir(r.t), "index.ts"), "-c", "--mode", "rpc"}
	if r.withoutExtension {
		args = []string{r.line.cli, "-c", "--mode", "rpc"}
	}
	cmd := exec.CommandContext(ctx, r.line.node, args...)
	cmd.Dir = r.workDir
	cmd.Env = r.env(acct)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	p := &rpcPi{t: r.t, stdin: stdin, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() { // owned by the test: ends when pi's stdout closes
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			p.mu.Lock()
			p.lines = append(p.lines, m)
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
		}
	}()
	r.t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
		}
		cancel()
		_ = cmd.Wait()
		if r.t.Failed() {
			r.t.Logf("pi rpc stderr:\n%s", stderr.String())
		}
	})
	return p
}

func (p *rpcPi) send(v map[string]any) {
	p.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// await returns the next line (after earlier awaits) that match accepts.
func (p *rpcPi) await(what string, match func(map[string]any) bool) map[string]any {
	p.t.Helper()
	deadline := time.After(90 * time.Second)
	p.mu.Lock()
	from := p.cursor
	p.mu.Unlock()
	for {
		p.mu.Lock()
		for p.cursor < len(p.lines) {
			m := p.lines[p.cursor]
			p.cursor++
			if match(m) {
				p.mu.Unlock()
				return m
			}
		}
		p.mu.Unlock()
		select {
		case <-p.more:
		case <-p.done:
			p.mu.Lock()
			left := p.cursor < len(p.lines)
			p.mu.Unlock()
			if !left {
				p.t.Fatalf("pi exited while waiting for %s", what)
			}
		case <-deadline:
			p.mu.Lock()
			var seen []string
			for _, m := range p.lines[from:] {
				seen = append(seen, str(m, "type")+" "+str(m, "method")+" "+str(m, "title")+str(m, "message"))
			}
			p.mu.Unlock()
			p.t.Fatalf("timed out waiting for %s; seen since:\n%s", what, strings.Join(seen, "\n"))
		}
	}
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// ui awaits an extension UI request of method whose text contains want.
func (p *rpcPi) ui(method, want string) map[string]any {
	p.t.Helper()
	return p.await(method+" "+want, func(m map[string]any) bool {
		return str(m, "type") == "extension_ui_request" && str(m, "method") == method &&
			strings.Contains(str(m, "title")+"\n"+str(m, "message"), want)
	})
}

// choose answers a select with the option that starts with label.
func (p *rpcPi) choose(req map[string]any, label string) {
	p.t.Helper()
	opts, _ := req["options"].([]any)
	for _, o := range opts {
		if s, _ := o.(string); strings.HasPrefix(s, label) {
			p.send(map[string]any{"type": "extension_ui_response", "id": req["id"], "value": s})
			return
		}
	}
	p.t.Fatalf("select %q has no option %q: %v", str(req, "title"), label, opts)
}

func (p *rpcPi) prompt(text string) {
	p.send(map[string]any{"type": "prompt", "message": text})
}

func (p *rpcPi) agentEnd() {
	p.t.Helper()
	p.await("agent_end", func(m map[string]any) bool { return str(m, "type") == "agent_end" })
}

// TestRPCAccountSwitchPauseAndOffer drives the interactive pieces: the
// /continuity view, the account-switch pause and its three choices, and
// the replay-rejection offer (declined, then accepted).
func TestRPCAccountSwitchPauseAndOffer(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			if res := r.print("acct-A", "list the files"); res.err != nil {
				t.Fatalf("turn 1 as A: %v\n%s", res.err, res.stderr)
			}
			p := r.rpc("acct-B")
			p.prompt("/continuity")
			p.ui("notify", "Session policy: Off")

			// Cancel: the request is aborted, nothing reaches the supplier.
			sent := len(r.sup.Requests())
			p.prompt("list the files")
			p.choose(p.ui("select", "You switched to a different account"), "Cancel")
			p.agentEnd()
			if n := len(r.sup.Requests()); n != sent {
				t.Fatalf("Cancel still sent %d requests", n-sent)
			}

			// Keep off: the request goes as pi built it and is rejected;
			// the offer comes, and declining it changes nothing.
			p.prompt("list the files")
			p.choose(p.ui("select", "You switched to a different account"), "Keep off")
			p.choose(p.ui("select", "Enable visible-history continuation"), "Cancel")
			p.agentEnd()
			reqs := r.sup.Requests()
			if len(reqs) != sent+1 || reqs[len(reqs)-1].Status != 400 {
				t.Fatalf("Keep off: want one rejected request, got %d more (last %d)", len(reqs)-sent, reqs[len(reqs)-1].Status)
			}

			// The account is B's now, so no pause; the rejection repeats
			// and this time the offer is accepted.
			p.prompt("list the files")
			p.choose(p.ui("select", "Enable visible-history continuation"), "Enable")
			p.ui("notify", "is on for this session")
			p.agentEnd()
			sent = len(r.sup.Requests())
			p.prompt("list the files")
			p.agentEnd()
			for _, req := range r.sup.Requests()[sent:] {
				if req.Status != 200 {
					t.Fatalf("after enabling: %d %s", req.Status, req.Problem)
				}
			}
			p.prompt("/continuity")
			p.ui("notify", "Session policy: On")
		})
	}
}

// TestRPCAccountSwitchEnableForThisSession: choosing Enable at the pause
// applies to the very turn that paused, so its requests are accepted.
func TestRPCAccountSwitchEnableForThisSession(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			if res := r.print("acct-A", "list the files"); res.err != nil {
				t.Fatalf("turn 1 as A: %v\n%s", res.err, res.stderr)
			}
			sent := len(r.sup.Requests())
			p := r.rpc("acct-B")
			p.prompt("list the files")
			p.choose(p.ui("select", "You switched to a different account"), "Enable for this session")
			p.agentEnd()
			reqs := r.sup.Requests()[sent:]
			if len(reqs) != 2 {
				t.Fatalf("want the tool step and the answer, got %d requests", len(reqs))
			}
			for _, req := range reqs {
				if req.Status != 200 || req.Account != "acct-B" {
					t.Fatalf("after Enable: %s %d %s", req.Account, req.Status, req.Problem)
				}
			}
		})
	}
}

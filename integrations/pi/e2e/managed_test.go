package e2e_test

import (
	"strings"
	"testing"
)

// compactedSession is a session of three turns as A whose context is
// mostly residue (the double's read tool fails twice and is retried), so
// continuity decides a compaction's boundary as a complete RESEED.
func compactedSession(t *testing.T, line piLine) *rig {
	t.Helper()
	r := newRig(t, line)
	r.write("settings.json", map[string]any{"defaultProvider": "github-copilot", "defaultModel": "gpt-5.3-codex",
		"compaction": map[string]any{"keepRecentTokens": 1}})
	for _, prompt := range []string{"list the files", "and the tests", "list the files"} {
		if res := r.print("acct-A", prompt); res.err != nil {
			t.Fatalf("%q: %v\n%s", prompt, res.err, res.stderr)
		}
	}
	return r
}

// compact runs pi's /compact over RPC and returns its response.
func (p *rpcPi) compact() map[string]any {
	p.t.Helper()
	p.send(map[string]any{"type": "compact"})
	return p.await("the compact response", func(m map[string]any) bool {
		return str(m, "type") == "response" && str(m, "command") == "compact"
	})
}

// TestRPCManagedCompactionReseed: pi's /compact on a session continuity
// decides as RESEED gets continuity's positive-state query as its summary,
// with no model call made for it; the person is told so, the footer marks
// the RESEED, `/continuity context` shows the decision (pin, kept,
// dropped), and the next request's input carries the query.
func TestRPCManagedCompactionReseed(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := compactedSession(t, line)
			p := r.rpc("acct-A")
			before := len(r.sup.Requests())
			p.mu.Lock()
			mark := p.cursor
			p.mu.Unlock()
			res := p.compact()
			if ok, _ := res["success"].(bool); !ok {
				t.Fatalf("pi could not compact: %v", res)
			}
			if n := len(r.sup.Requests()) - before; n != 0 {
				t.Fatalf("the compaction made %d model calls; a RESEED's query needs none", n)
			}
			p.mu.Lock()
			p.cursor = mark // what the compaction said came before its response
			p.mu.Unlock()
			p.ui("notify", "no model call was made for it")
			p.mu.Lock()
			p.cursor = mark // the decision's footer comes before that notice
			p.mu.Unlock()
			p.await("the RESEED footer", func(m map[string]any) bool {
				return str(m, "method") == "setStatus" && str(m, "statusKey") == "continuity-boundary" && strings.HasPrefix(str(m, "statusText"), "Context boundary: RESEED")
			})
			data, _ := res["data"].(map[string]any)
			summary := str(data, "summary")
			if !strings.Contains(summary, "Current request") && !strings.Contains(summary, "Task") {
				t.Fatalf("the compaction's summary is not continuity's query:\n%s", summary)
			}
			p.prompt("/continuity context")
			v := p.ui("notify", "Pinned task: event")
			for _, want := range []string{"Context boundary: RESEED", "Kept:", "Dropped as residue:", "(compaction_start,"} {
				if !strings.Contains(str(v, "message"), want) {
					t.Fatalf("/continuity context lacks %q:\n%s", want, str(v, "message"))
				}
			}
			sent := len(r.sup.Requests())
			p.prompt("and the tests")
			p.agentEnd()
			reqs := r.sup.Requests()[sent:]
			if len(reqs) == 0 || reqs[0].Status != 200 {
				t.Fatalf("the turn after the compaction: %d requests", len(reqs))
			}
			first := strings.SplitN(summary, "\n", 2)[0]
			if !strings.Contains(string(reqs[0].Body), jsonText(first)) {
				t.Fatalf("the next request does not carry the query (%q)", first)
			}
		})
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	return q
}

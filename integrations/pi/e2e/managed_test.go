package e2e_test

import (
	"strings"
	"testing"
	"time"
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

// TestCompactionBenchRow compacts the same session twice — once with the
// extension, where continuity's RESEED query is the summary, once with pi
// alone, where pi's own compaction asks the model — and reports, for each,
// the time /compact took, the model calls it made and the tokens of the
// context the next request carried (the double counts four bytes a
// token). Run with -v to read the row; it fails unless the managed
// compaction makes no model call and pi's own makes at least one.
func TestCompactionBenchRow(t *testing.T) {
	line := piLines(t)[1]
	type row struct {
		calls, tokens int
		took          time.Duration
	}
	measure := func(without bool) row {
		r := compactedSession(t, line)
		r.withoutExtension = without
		p := r.rpc("acct-A")
		before := len(r.sup.Requests())
		start := time.Now()
		if res := p.compact(); res["success"] != true {
			t.Fatalf("compact (pi alone %v): %v", without, res)
		}
		took := time.Since(start)
		calls := len(r.sup.Requests()) - before
		sent := len(r.sup.Requests())
		p.prompt("and the tests")
		p.agentEnd()
		reqs := r.sup.Requests()[sent:]
		if len(reqs) == 0 {
			t.Fatalf("no request after the compaction (pi alone %v)", without)
		}
		p.stop()
		return row{calls: calls, tokens: len(reqs[0].Body) / 4, took: took}
	}
	managed, own := measure(false), measure(true)
	t.Logf("compaction of the same 3-turn session, pi %s (machine shared, one run each):", line.name)
	t.Logf("  continuity RESEED query: %8s  %d model calls  next context %d tokens", managed.took.Round(time.Millisecond), managed.calls, managed.tokens)
	t.Logf("  pi's own compaction:     %8s  %d model calls  next context %d tokens", own.took.Round(time.Millisecond), own.calls, own.tokens)
	if managed.calls != 0 || own.calls == 0 {
		t.Fatalf("model calls: managed %d (want 0), pi's own %d (want at least 1)", managed.calls, own.calls)
	}
}

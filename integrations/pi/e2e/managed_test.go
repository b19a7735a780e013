package e2e_test

import (
	"encoding/json"
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
// the time /compact took once pi was ready, the model calls it made, the
// summary's tokens and the tokens of the context the next request carried
// (four bytes a token; the tools the request declares apart, since the
// extension adds its own). pi's own summary is the double's short answer, not
// a real model's, so only the time and the calls compare as they would in
// use; the tokens show what continuity's query costs. Run with -v to read the row; it fails unless the managed
// compaction makes no model call and pi's own makes at least one.
func TestCompactionBenchRow(t *testing.T) {
	line := piLines(t)[1]
	type row struct {
		calls, tokens, tools, summary int
		took                          time.Duration
	}
	measure := func(without bool) row {
		r := compactedSession(t, line)
		r.withoutExtension = without
		p := r.rpc("acct-A")
		// pi answers commands once its extensions have loaded (the
		// extension's load starts the plugin): the clock starts after that,
		// so the row times the compaction, not pi's or the plugin's start.
		p.send(map[string]any{"type": "get_state"})
		p.await("the get_state response", func(m map[string]any) bool {
			return str(m, "type") == "response" && str(m, "command") == "get_state"
		})
		before := len(r.sup.Requests())
		start := time.Now()
		res := p.compact()
		took := time.Since(start)
		if res["success"] != true {
			t.Fatalf("compact (pi alone %v): %v", without, res)
		}
		data, _ := res["data"].(map[string]any)
		calls := len(r.sup.Requests()) - before
		sent := len(r.sup.Requests())
		p.prompt("and the tests")
		p.agentEnd()
		reqs := r.sup.Requests()[sent:]
		if len(reqs) == 0 {
			t.Fatalf("no request after the compaction (pi alone %v)", without)
		}
		p.stop()
		// The extension's tools (continue_session, session_recall, …) ride
		// on every request pi makes with it: counted apart, so that the
		// context row compares the contexts.
		var body map[string]json.RawMessage
		if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
			t.Fatal(err)
		}
		tools := len(body["tools"])
		return row{calls: calls, tokens: (len(reqs[0].Body) - tools) / 4, tools: tools / 4, summary: len(str(data, "summary")) / 4, took: took}
	}
	managed, own := measure(false), measure(true)
	t.Logf("compaction of the same 3-turn session, pi %s (machine shared, one run each):", line.name)
	t.Logf("  continuity RESEED query: %8s  %d model calls  summary %5d tokens  next context %d tokens + tools %d", managed.took.Round(time.Millisecond), managed.calls, managed.summary, managed.tokens, managed.tools)
	t.Logf("  pi's own compaction:     %8s  %d model calls  summary %5d tokens  next context %d tokens + tools %d", own.took.Round(time.Millisecond), own.calls, own.summary, own.tokens, own.tools)
	t.Logf("  managed/own: time %.2f×, next context tokens %.2f×", float64(managed.took)/float64(own.took), float64(managed.tokens)/float64(own.tokens))
	if managed.calls != 0 || own.calls == 0 {
		t.Fatalf("model calls: managed %d (want 0), pi's own %d (want at least 1)", managed.calls, own.calls)
	}
}

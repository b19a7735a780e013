package e2e_test

import (
	"strings"
	"testing"
)

// TestRPCCompactionUndecidedRunsPisOwn is managed context's other path:
// when continuity cannot rebuild the context, pi's own compaction runs and
// the person is told why. The session's three turns ran in pi alone, so
// when the extension is added continuity has seen no prompt of it: no task
// is pinned, the boundary is a RESEED with nothing to rebuild from, and
// nothing is inferred. pi's /compact then summarizes with its own model
// call, and the notice says that and the reason.
func TestRPCCompactionUndecidedRunsPisOwn(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			r.write("settings.json", map[string]any{"defaultProvider": "github-copilot", "defaultModel": "gpt-5.3-codex",
				"compaction": map[string]any{"keepRecentTokens": 1}})
			r.withoutExtension = true
			alone := r.rpc("acct-A")
			for _, prompt := range []string{"list the files", "and the tests", "list the files"} {
				alone.prompt(prompt)
				alone.agentEnd()
			}
			alone.stop()

			r.withoutExtension = false
			p := r.rpc("acct-A")
			before := len(r.sup.Requests())
			res := p.compact()
			if ok, _ := res["success"].(bool); !ok {
				t.Fatalf("pi could not compact: %v", res)
			}
			if n := len(r.sup.Requests()) - before; n == 0 {
				t.Fatalf("pi's own compaction made no model call")
			}
			data, _ := res["data"].(map[string]any)
			if summary := str(data, "summary"); strings.Contains(summary, "Current request") {
				t.Fatalf("the summary is continuity's query, not pi's own:\n%s", summary)
			}
			p.mu.Lock()
			p.cursor = 0 // the notice came before the compact response
			p.mu.Unlock()
			n := str(p.ui("notify", "pi's own compaction summarizes this time."), "message")
			if !strings.Contains(n, "No originating task is pinned; nothing is inferred.") {
				t.Fatalf("the notice does not say why pi's own compaction ran: %q", n)
			}
		})
	}
}

package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// warmingModels is models.json for the github-copilot double with a prompt
// cache declared for the rig's model (pi 1.x warms only such models; none
// of github-copilot's built-in ones declare one): an 11 s lifetime, so pi
// refreshes about every second, and a price that makes a refresh pay for
// itself by pi's estimate.
func warmingModels(url string) map[string]any {
	return map[string]any{"providers": map[string]any{"github-copilot": map[string]any{
		"baseUrl": url,
		"modelOverrides": map[string]any{"gpt-5.3-codex": map[string]any{
			"promptCache": map[string]any{"short": 11},
			"cost":        map[string]any{"input": 1000, "output": 1, "cacheRead": 1, "cacheWrite": 0},
		}},
	}}}
}

// isRefresh reports whether a body is pi's cache-warming refresh: the last
// request repeated with its output capped at one token (pi sends the
// Responses minimum, 16).
func isRefresh(t *testing.T, body []byte) bool {
	t.Helper()
	var req struct {
		MaxOutputTokens int `json:"max_output_tokens"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("supplier body: %v", err)
	}
	return req.MaxOutputTokens == 16
}

// stop closes an RPC pi's stdin and waits for it to exit.
func (p *rpcPi) stop() {
	p.t.Helper()
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.t.Fatal("pi did not exit after its stdin closed")
	}
}

// TestProvenanceRuleAcrossAccounts is A → A → B → A with the provenance
// rule (`/continuity rule provenance`) and the policy on: A's reasoning is
// kept on A's turns (turn 2 carries turn 1's, turn 4 turns 1 and 2's), B's
// turn carries none of A's, turn 4 none of B's, and every request is
// accepted; /continuity shows the rule and what it omitted. Turns 3 and 4
// run in one RPC pi each; on pi 1.6.0 it is left idle afterwards so that
// pi's cache warming refreshes the last request: each refresh is accepted
// too, and carries exactly the reasoning its turn's last request carried.
func TestProvenanceRuleAcrossAccounts(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			warms := strings.HasPrefix(line.name, "1.")
			if warms {
				r.write("models.json", warmingModels(r.sup.URL()))
			}
			r.activate()
			if res := r.print("", "/continuity rule provenance", "--no-session"); res.err != nil || !strings.Contains(res.stderr, "Omission rule: provenance") {
				t.Fatalf("/continuity rule provenance: %v\n%s", res.err, res.stderr)
			}
			accounts := []string{"acct-A", "acct-A", "acct-B", "acct-A"}
			// want[turn][step]: the reasoning items each real request carries.
			want := [][2]int{{0, 1}, {2, 3}, {0, 1}, {4, 5}}
			type turnReqs struct{ real, refresh []int }
			var turns []turnReqs
			for i, acct := range accounts {
				from := len(r.sup.Requests())
				if i >= 2 {
					p := r.rpc(acct)
					p.prompt("list the files")
					p.agentEnd()
					deadline := time.Now().Add(60 * time.Second)
					for warms && r.countRefreshes(from) < 2 {
						if time.Now().After(deadline) {
							t.Fatalf("turn %d: pi sent no cache-warming refresh within 60 s", i+1)
						}
						time.Sleep(200 * time.Millisecond)
					}
					if i == 3 {
						// The view names the rule and what it omitted: B's two items.
						p.prompt("/continuity")
						p.ui("notify", "Omission rule: provenance")
						p.prompt("/continuity")
						p.ui("notify", "The last request omitted 2 reasoning items")
					}
					p.stop()
				} else if res := r.print(acct, "list the files"); res.err != nil {
					t.Fatalf("turn %d as %s: %v\n%s", i+1, acct, res.err, res.stderr)
				}
				var tr turnReqs
				for j, req := range r.sup.Requests()[from:] {
					if req.Status != 200 {
						t.Fatalf("turn %d request %d (%s, refresh %v) rejected: %d %s", i+1, j+1, req.Account, isRefresh(t, req.Body), req.Status, req.Problem)
					}
					if req.Account != acct {
						t.Fatalf("turn %d request %d made as %s, want %s", i+1, j+1, req.Account, acct)
					}
					n := len(reasoningIDs(t, req.Body))
					if isRefresh(t, req.Body) {
						tr.refresh = append(tr.refresh, n)
					} else {
						tr.real = append(tr.real, n)
					}
				}
				turns = append(turns, tr)
			}
			for i, tr := range turns {
				if len(tr.real) != 2 || tr.real[0] != want[i][0] || tr.real[1] != want[i][1] {
					t.Errorf("turn %d (%s): the requests carried %v reasoning items, want %v", i+1, accounts[i], tr.real, want[i])
				}
				for _, n := range tr.refresh {
					if n != want[i][1] {
						t.Errorf("turn %d (%s): a refresh carried %d reasoning items, want the %d of the turn's last request", i+1, accounts[i], n, want[i][1])
					}
				}
				if warms && i >= 2 && len(tr.refresh) < 2 {
					t.Errorf("turn %d: %d refreshes, want at least 2", i+1, len(tr.refresh))
				}
			}
		})
	}
}

// countRefreshes counts the refreshes the supplier received from request from on.
func (r *rig) countRefreshes(from int) int {
	n := 0
	for _, req := range r.sup.Requests()[from:] {
		if isRefresh(r.t, req.Body) {
			n++
		}
	}
	return n
}

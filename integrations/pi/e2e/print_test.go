package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Command output goes to stderr in print mode (pi keeps stdout for the
// answer), and a run of only a command exits with the status of the
// session's last answer, so command runs are judged by their stderr.

// activate loads the extension once without a session, the way a person's
// first start of pi with the extension does: the plugin writes the
// creation-time default (on), so sessions born afterwards start on.
func (r *rig) activate() {
	r.t.Helper()
	res := r.print("", "/continuity", "--no-session")
	if !strings.Contains(res.stderr, "Use the new-session default: On (shared by the plugin, pi and every proxy on this data directory)") {
		r.t.Fatalf("first load: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
}

// TestPrintAccountSwitchesWithPolicyOn is A → B → B → A with a tool step
// in every turn, in a session born after activation (policy on by the
// creation-time default): every request is accepted, the bytes the
// supplier received are the plugin's output, earlier turns' reasoning is
// omitted, and the reasoning of the turn's own tool step is kept.
//
// In the body form the whole body goes to the plugin and the digest the
// plugin reports is of its own output bytes; in the digest form (the
// default) the body stays pi's object and the trace's digest is of the
// body the extension hands pi. Either way the supplier must receive
// exactly those bytes.
func TestPrintAccountSwitchesWithPolicyOn(t *testing.T) {
	for _, line := range piLines(t) {
		for _, form := range []string{"body", "digest"} {
			t.Run(line.name+"/"+form, func(t *testing.T) {
				r := newRig(t, line)
				r.form = form
				r.activate()
				accounts := []string{"acct-A", "acct-B", "acct-B", "acct-A"}
				for i, acct := range accounts {
					res := r.print(acct, "list the files")
					if res.err != nil || strings.TrimSpace(res.stdout) == "" {
						t.Fatalf("turn %d as %s: %v\nstdout:\n%s\nstderr:\n%s", i+1, acct, res.err, res.stdout, res.stderr)
					}
				}
				reqs := r.sup.Requests()
				trs := r.traces()
				if len(reqs) != 2*len(accounts) || len(trs) != len(reqs) {
					t.Fatalf("supplier saw %d requests, the extension traced %d; want %d (a tool step and an answer per turn)", len(reqs), len(trs), 2*len(accounts))
				}
				for i, req := range reqs {
					if req.Status != 200 {
						t.Fatalf("request %d (%s) rejected: %d %s", i+1, req.Account, req.Status, req.Problem)
					}
					if got := sha(req.Body); got != trs[i].SHA256 {
						t.Fatalf("request %d: the supplier received bytes with sha256 %s, the plugin's output has %s", i+1, got, trs[i].SHA256)
					}
					if want := accounts[i/2]; req.Account != want {
						t.Fatalf("request %d made as %s, want %s", i+1, req.Account, want)
					}
				}
				for turn := range accounts {
					first, second := reqs[2*turn], reqs[2*turn+1]
					if ids := reasoningIDs(t, first.Body); len(ids) != 0 {
						t.Fatalf("turn %d step 1 still carries earlier reasoning %v", turn+1, ids)
					}
					if turn > 0 && (trs[2*turn].Outcome != "filtered" || trs[2*turn].Omitted.Items != 2*turn || trs[2*turn].Omitted.StrippedIDs == 0) {
						t.Fatalf("turn %d step 1: %+v, want the %d earlier reasoning items omitted with their paired ids", turn+1, trs[2*turn], 2*turn)
					}
					kept := reasoningIDs(t, second.Body)
					if len(kept) != 1 {
						t.Fatalf("turn %d step 2 carries reasoning %v; want exactly the tool step's own", turn+1, kept)
					}
					if trs[2*turn+1].Turn != turn+1 || trs[2*turn+1].Step != 2 {
						t.Fatalf("request %d traced as turn %d step %d", 2*turn+2, trs[2*turn+1].Turn, trs[2*turn+1].Step)
					}
				}
			})
		}
	}
}

// TestPrintAccountSwitchWithPolicyOff: a session born before activation
// stays off; the switch to B is noticed (print mode: no prompt, the notice
// on stderr), the supplier rejects the replayed reasoning, the rejection
// offer is shown, and nothing is re-sent. Accepting the offer with
// `/continuity on confirm` makes the next turn go through.
func TestPrintAccountSwitchWithPolicyOff(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			if res := r.print("acct-A", "list the files"); res.err != nil {
				t.Fatalf("turn 1: %v\n%s", res.err, res.stderr)
			}
			before := len(r.sup.Requests())
			res := r.print("acct-B", "list the files")
			reqs := r.sup.Requests()
			if len(reqs) != before+1 {
				t.Fatalf("after the rejection the supplier saw %d more requests, want exactly 1 (nothing re-sent)", len(reqs)-before)
			}
			if last := reqs[len(reqs)-1]; last.Status != 400 || last.Problem == "" {
				t.Fatalf("the switched turn was not rejected: %d %q", last.Status, last.Problem)
			}
			// Each thing is said once: the rejection, and the offer.
			if n := strings.Count(res.stderr, "The supplier rejected this request"); n != 1 {
				t.Fatalf("the rejection is said %d times, want once:\n%s", n, res.stderr)
			}
			for _, want := range []string{
				"You switched to a different account",
				"The supplier rejected this request because",
				"Enable visible-history continuation",
				"Encrypted reasoning from earlier turns will be omitted",
			} {
				if !strings.Contains(res.stderr, want) {
					t.Fatalf("stderr lacks %q:\n%s", want, res.stderr)
				}
			}

			if res := r.print("acct-B", "/continuity on"); !strings.Contains(res.stderr, "confirm") {
				t.Fatalf("/continuity on without confirm must show the disclosure and ask for confirm:\n%s", res.stderr)
			}
			if res := r.print("acct-B", "/continuity on confirm"); !strings.Contains(res.stderr, "Session policy: On") {
				t.Fatalf("/continuity on confirm:\n%s", res.stderr)
			}
			if res := r.print("acct-B", "list the files"); res.err != nil {
				t.Fatalf("after enabling: %v\n%s", res.err, res.stderr)
			}
			for _, req := range r.sup.Requests()[len(reqs):] {
				if req.Status != 200 {
					t.Fatalf("after enabling, a request was rejected: %d %s", req.Status, req.Problem)
				}
			}
		})
	}
}

// TestPrintPluginErrorAbortsTheRequest: when the plugin cannot filter
// (here its stored settings are malformed, so activation fails and
// admission is refused), the request is aborted with the named diagnostic
// instead of being sent unfiltered.
func TestPrintPluginErrorAbortsTheRequest(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			dir := filepath.Join(r.dataDir, "settings")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "github-copilot.json"), []byte(`{"revision":1,"value":{"continuationDefaultHistory":"broken"}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			res := r.print("acct-A", "list the files")
			if n := len(r.sup.Requests()); n != 0 {
				t.Fatalf("the supplier received %d requests; a plugin error must stop the request", n)
			}
			if !strings.Contains(res.stderr, "The request was not sent (COPILOT_CONTINUATION_INITIALIZATION_FAILED)") {
				t.Fatalf("stderr lacks the named diagnostic:\n%s", res.stderr)
			}
			if res.err == nil {
				t.Fatalf("pi exited 0 although its request was aborted")
			}
		})
	}
}

// TestPrintTextsInSimplifiedChinese: the extension speaks the locale's
// texts from ui-contract (here zh-CN), for the view and the disclosure.
func TestPrintTextsInSimplifiedChinese(t *testing.T) {
	line := piLines(t)[0]
	r := newRig(t, line)
	r.locale = "zh-CN"
	res := r.print("", "/continuity", "--no-session")
	if !strings.Contains(res.stderr, "可见历史续接") || !strings.Contains(res.stderr, "会话策略") {
		t.Fatalf("/continuity in zh-CN:\n%s", res.stderr)
	}
	res = r.print("", "/continuity on", "--no-session")
	if !strings.Contains(res.stderr, "此会话的请求将省略先前轮次的加密推理内容") {
		t.Fatalf("the disclosure in zh-CN:\n%s", res.stderr)
	}
}

// TestPrintOpenAIProvider: pi's openai provider takes part too (declared
// in payloadProviders): an account switch between runs, the API key
// changing, is accepted with the policy on.
func TestPrintOpenAIProvider(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			r.keyEnv = "OPENAI_API_KEY"
			r.write("models.json", map[string]any{"providers": map[string]any{"openai": map[string]any{"baseUrl": r.sup.URL() + "/v1"}}})
			r.write("settings.json", map[string]any{"defaultProvider": "openai", "defaultModel": "gpt-5.4"})
			r.activate()
			for i, acct := range []string{"acct-A", "acct-B"} {
				if res := r.print(acct, "list the files"); res.err != nil {
					t.Fatalf("turn %d as %s: %v\n%s", i+1, acct, res.err, res.stderr)
				}
			}
			reqs := r.sup.Requests()
			if len(reqs) != 4 {
				t.Fatalf("want 4 requests, got %d", len(reqs))
			}
			for i, req := range reqs {
				if req.Status != 200 {
					t.Fatalf("request %d (%s) rejected: %d %s", i+1, req.Account, req.Status, req.Problem)
				}
			}
			if ids := reasoningIDs(t, reqs[2].Body); len(ids) != 0 {
				t.Fatalf("turn 2 step 1 still carries A's reasoning %v", ids)
			}
		})
	}
}

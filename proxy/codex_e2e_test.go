package proxy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// codex is one Codex CLI home: its configuration names the provider "sup"
// with the Responses wire API, no WebSockets, no retries, no updates and
// no telemetry, so nothing leaves loopback.
type codex struct {
	t    *testing.T
	home string
	work string
	bin  string
}

// newCodex writes a CODEX_HOME. name is the provider's display name:
// "OpenAI" makes Codex use remote compaction (v2), compactAt its token
// limit for automatic compaction (0: Codex's default).
func newCodex(t *testing.T, name string, compactAt int) *codex {
	t.Helper()
	c := &codex{t: t, home: t.TempDir(), work: t.TempDir(), bin: clientBin(t, "codex")}
	conf := `model = "gpt-5.4"
model_provider = "sup"
model_reasoning_effort = "low"
check_for_update_on_startup = false
`
	if compactAt > 0 {
		conf += "model_auto_compact_token_limit = " + strconv.Itoa(compactAt) + "\n"
	}
	conf += `
[model_providers.sup]
name = "` + name + `"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
env_key = "SUP_KEY"
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[otel]
exporter = "none"
`
	if err := os.WriteFile(filepath.Join(c.home, "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// args is a codex exec command line against base with prompt; resume
// continues the most recent thread.
func (c *codex) args(base, prompt string, resume bool) []string {
	a := []string{"exec", "--skip-git-repo-check", "--sandbox", "read-only",
		"-c", `model_providers.sup.base_url="` + base + `/v1"`}
	if resume {
		a = append(a, "resume", "--last")
	}
	return append(a, prompt)
}

// turn runs one prompt with token against base and fails the test when
// Codex fails.
func (c *codex) turn(base, token, prompt string, resume bool) string {
	c.t.Helper()
	return runClient(c.t, c.work, c.env(token), c.bin, c.args(base, prompt, resume)...)
}

// tryTurn is turn for a run that is expected to fail.
func (c *codex) tryTurn(base, token, prompt string) (string, error) {
	c.t.Helper()
	return tryClient(c.t, c.work, c.env(token), c.bin, c.args(base, prompt, true)...)
}

func (c *codex) env(token string) []string {
	return baseEnv("HOME="+c.home, "CODEX_HOME="+c.home, "SUP_KEY="+token)
}

// execStep is a tool step Codex can run: exec_command with a harmless command.
var execStep = supplier.Answer{Kind: supplier.ToolCall, Tool: "exec_command", Arguments: `{"cmd":"echo step"}`}

// toolTurn scripts one turn of a tool call and a final message.
func toolTurn(sup *supplier.Server) {
	sup.Script(execStep, supplier.Answer{Kind: supplier.Message, Text: "done"})
}

// inputItems decodes a request body's input items (test-side only).
func inputItems(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var req struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return req.Input
}

// reasoningIDs lists the reasoning and compaction items of a request body
// by the id their content was minted for (opencode replays them without
// ids).
func reasoningIDs(t *testing.T, body []byte) []string {
	var out []string
	for _, it := range inputItems(t, body) {
		if it["type"] != "reasoning" && it["type"] != "compaction" {
			continue
		}
		c, _ := it["encrypted_content"].(string)
		id, ok := supplier.MintedFor(c)
		if !ok {
			t.Fatalf("a replayed %s item holds content the supplier never minted", it["type"])
		}
		out = append(out, id)
	}
	return out
}

// since returns the supplier's requests after the first n.
func since(sup *supplier.Server, n int) []supplier.Request { return sup.Requests()[n:] }

// TestCodexAccountSwitches runs the real Codex CLI through the proxy: a
// thread started with key A, resumed with key B, B again, then A, each turn
// with a tool step. Every request through the proxy is accepted and keeps
// the turn's own reasoning on its tool step; the same turn sent directly to
// the supplier is rejected for replaying another account's reasoning.
func TestCodexAccountSwitches(t *testing.T) {
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	c := newCodex(t, "sup", 0)

	toolTurn(sup)
	n := len(sup.Requests())
	c.turn(px.URL, tokenA, "first", false)
	checkTurn(t, since(sup, n), "acct-A", 2)

	for i, step := range []struct{ token, account string }{{tokenB, "acct-B"}, {tokenB, "acct-B"}, {tokenA, "acct-A"}} {
		n = len(sup.Requests())
		out, err := c.tryTurn(sup.URL(), step.token, "direct "+strconv.Itoa(i))
		direct := since(sup, n)
		if err == nil || len(direct) == 0 || direct[len(direct)-1].Status != 400 ||
			!strings.HasPrefix(direct[len(direct)-1].Problem, "foreign rs_") {
			t.Fatalf("turn %d sent directly as %s was not rejected for foreign reasoning: %v %+v\n%s", i+2, step.account, err, lastProblem(direct), out)
		}
		toolTurn(sup)
		n = len(sup.Requests())
		c.turn(px.URL, step.token, "turn "+strconv.Itoa(i+2), true)
		checkTurn(t, since(sup, n), step.account, 2)
	}
	if !strings.Contains(px.Log(), `"msg":"omitted"`) {
		t.Errorf("the proxy logged no omission:\n%s", px.Log())
	}
	for _, secret := range []string{tokenA, tokenB, "gAAAAAB"} {
		if strings.Contains(px.Log(), secret) {
			t.Fatalf("the proxy's log holds %q", secret)
		}
	}
}

// lastProblem summarises the last request of a run for a failure message.
func lastProblem(reqs []supplier.Request) string {
	if len(reqs) == 0 {
		return "no request reached the supplier"
	}
	r := reqs[len(reqs)-1]
	return strconv.Itoa(r.Status) + " " + r.Problem
}

// checkTurn asserts that a turn's requests all reached the supplier as
// account and were accepted, that there were at least steps of them, and
// that each tool step carried the reasoning the turn's previous response
// issued.
func checkTurn(t *testing.T, reqs []supplier.Request, account string, steps int) {
	t.Helper()
	if len(reqs) < steps {
		t.Fatalf("%d requests, want at least %d", len(reqs), steps)
	}
	prev := ""
	for i, r := range reqs {
		if r.Status != 200 || r.Account != account {
			t.Fatalf("request %d of the turn: %d %q as %s", i+1, r.Status, r.Problem, r.Account)
		}
		ids := reasoningIDs(t, r.Body)
		t.Logf("%s request %d: %s replays %v", account, i+1, r.Response, ids)
		if prev != "" && !contains(ids, prev) {
			t.Fatalf("tool step %d lost the turn's reasoning %s (it has %v)", i+1, prev, ids)
		}
		prev = "rs_" + strings.TrimPrefix(r.Response, "resp_")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestCodexSameAccountLosesNothing: under the provenance rule a thread that
// never switches accounts replays every reasoning item it was given.
func TestCodexSameAccountLosesNothing(t *testing.T) {
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	c := newCodex(t, "sup", 0)
	toolTurn(sup)
	c.turn(px.URL, tokenA, "first", false)
	issued := len(sup.Requests())
	toolTurn(sup)
	n := len(sup.Requests())
	c.turn(px.URL, tokenA, "second", true)
	reqs := since(sup, n)
	checkTurn(t, reqs, "acct-A", 2)
	ids := reasoningIDs(t, reqs[0].Body)
	for i := 1; i <= issued; i++ {
		if !contains(ids, "rs_"+strconv.Itoa(i)) {
			t.Fatalf("the second turn lost rs_%d: it replays %v", i, ids)
		}
	}
}

// TestCodexCompactionFromAnotherAccount: Codex compacts remotely (v2) under
// key A; resumed with key B, the compaction item A was issued is omitted
// and counted, and the turn is accepted, where sent directly it is not.
func TestCodexCompactionFromAnotherAccount(t *testing.T) {
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	c := newCodex(t, "OpenAI", 14000)
	for i, prompt := range []string{"first", "second"} {
		toolTurn(sup)
		c.turn(px.URL, tokenA, prompt, i > 0)
	}
	var cmp string
	for _, r := range sup.Requests() {
		if strings.Contains(string(r.Body), `"type":"compaction_trigger"`) && r.Status == 200 {
			cmp = "cmp_" + strings.TrimPrefix(r.Response, "resp_")
		}
	}
	if cmp == "" || sup.Issued(cmp) != "acct-A" {
		t.Fatalf("Codex did not compact under acct-A (compaction %q)", cmp)
	}
	n := len(sup.Requests())
	if out, err := c.tryTurn(sup.URL(), tokenB, "direct"); err == nil {
		t.Fatalf("resumed directly with key B after A's compaction: accepted\n%s", out)
	}
	if got := lastProblem(since(sup, n)); !strings.Contains(got, "foreign") {
		t.Fatalf("direct resume: %s", got)
	}
	toolTurn(sup)
	n = len(sup.Requests())
	c.turn(px.URL, tokenB, "third", true)
	reqs := since(sup, n)
	for _, r := range reqs {
		if r.Status != 200 {
			t.Fatalf("through the proxy: %d %s", r.Status, r.Problem)
		}
		if contains(reasoningIDs(t, r.Body), cmp) {
			t.Fatalf("A's compaction %s reached the supplier as B", cmp)
		}
	}
	omitted := 0
	for _, s := range pageState(t, px).Sessions {
		for _, tv := range s.Turns {
			omitted += tv.OmittedCompaction
		}
	}
	if omitted == 0 {
		t.Fatal("the status page counts no omitted compaction")
	}
}

package proxy_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// since returns the supplier's requests after the first n.
func since(sup *supplier.Server, n int) []supplier.Request { return sup.Requests()[n:] }

// TestCodexAccountSwitches runs the real Codex CLI through the proxy: a
// thread started with key A, resumed with key B, B again, then A, each turn
// with a tool step. Every request through the proxy is accepted and keeps
// the turn's own reasoning on its tool step; the same turn sent directly to
// the supplier is rejected for replaying another account's reasoning.
func TestCodexAccountSwitches(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestCodexTurnRule runs Codex through a proxy started with --rule turn:
// each turn's first request omits all reasoning it replays (switch or not),
// its tool step keeps what the turn made, and every request is accepted.
func TestCodexTurnRule(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "", "--rule", "turn")
	c := newCodex(t, "sup", 0)
	for i, token := range []string{tokenA, tokenB, tokenA} {
		toolTurn(sup)
		n := len(sup.Requests())
		c.turn(px.URL, token, "turn "+strconv.Itoa(i+1), i > 0)
		reqs := since(sup, n)
		checkTurn(t, reqs, map[string]string{tokenA: "acct-A", tokenB: "acct-B"}[token], 2)
		if ids := reasoningIDs(t, reqs[0].Body); len(ids) != 0 {
			t.Fatalf("turn %d's first request replays %v under the turn rule", i+1, ids)
		}
	}
	if st := pageState(t, px); st.Rule != "turn" {
		t.Fatalf("rule %q", st.Rule)
	}
}

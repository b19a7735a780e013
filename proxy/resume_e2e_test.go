package proxy_test

import (
	"bytes"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
	"github.com/continuity-dev/continuity/internal/testbin"
)

// resumeThroughProxy plays switchTurns (B, B with a tool step, then A)
// with a client whose thread was started as A straight at the supplier,
// so the proxy never saw who issued its first reasoning. Each turn is
// first sent directly, which the supplier must reject for another
// account's reasoning, then through the proxy with its default settings,
// which must be accepted with every tool step keeping the turn's
// reasoning, and every reasoning item issued through the proxy to the
// account in use kept on the turns that follow.
func resumeThroughProxy(t *testing.T, sup *supplier.Server, px *running, tool supplier.Answer, run func(base, token, prompt string) (string, error)) {
	t.Helper()
	kept := map[string][]string{} // account → reasoning issued to it through the proxy
	for i, step := range switchTurns {
		n := len(sup.Requests())
		out, err := run(sup.URL(), step.token, "direct "+strconv.Itoa(i))
		direct := since(sup, n)
		if err == nil || len(direct) == 0 || direct[0].Status != 400 || !strings.HasPrefix(direct[0].Problem, "foreign") {
			t.Fatalf("turn %d sent directly as %s was not rejected: %v %s\n%s", i+2, step.account, err, lastProblem(direct), out)
		}
		sup.Script(tool)
		n = len(sup.Requests())
		if out, err := run(px.URL, step.token, "turn "+strconv.Itoa(i+2)); err != nil {
			t.Fatalf("turn %d through the proxy as %s: %v\n%s", i+2, step.account, err, out)
		}
		reqs := since(sup, n)
		checkTurn(t, reqs, step.account, 2)
		ids := reasoningIDs(t, reqs[0].Body)
		for _, id := range kept[step.account] {
			if !contains(ids, id) {
				t.Fatalf("turn %d as %s lost %s, issued to it through the proxy (it replays %v)", i+2, step.account, id, ids)
			}
		}
		for _, r := range reqs {
			kept[step.account] = append(kept[step.account], "rs_"+strings.TrimPrefix(r.Response, "resp_"))
		}
	}
}

// policyRows runs `continuity policy` on dir and returns its table: the
// session, its policy, source and client by session.
func policyRows(t *testing.T, dir string) map[string][3]string {
	t.Helper()
	out, err := exec.Command(testbin.Path(t), "policy", "--data-dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("continuity policy: %v\n%s", err, out)
	}
	rows := map[string][3]string{}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "SESSION") {
		t.Fatalf("continuity policy printed no table:\n%s", out)
	}
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		if len(f) < 6 {
			t.Fatalf("row %q", l)
		}
		rows[f[0]] = [3]string{f[1], f[2], f[3]}
	}
	return rows
}

// samePolicies fails the test unless `continuity policy` lists exactly the
// page's sessions with the page's policy, source and client.
func samePolicies(t *testing.T, px *running) {
	t.Helper()
	rows := policyRows(t, px.DataDir)
	st := pageState(t, px)
	if len(rows) != len(st.Sessions) {
		t.Fatalf("continuity policy lists %d sessions, the page %d: %v", len(rows), len(st.Sessions), rows)
	}
	for _, s := range st.Sessions {
		if got, want := rows[s.ID], [3]string{s.Policy, s.Source, s.Client}; got != want {
			t.Fatalf("session %s: continuity policy says %v, the page %v", s.ID, got, want)
		}
	}
}

// policyCommand runs `continuity policy` with args, returning its output
// and exit code.
func policyCommand(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(testbin.Path(t), append([]string{"policy"}, args...)...).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestCodexResumedThroughProxy: the real Codex CLI, a thread started as A
// straight at the supplier, resumed through the proxy with its default
// settings as B, B again with a tool step, then A: every request through
// the proxy is accepted, the same turns sent directly are rejected, the
// reasoning A was issued before the proxy is omitted as of unknown issuer,
// and `continuity policy` agrees with the page before and after a restart.
func TestCodexResumedThroughProxy(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	c := newCodex(t, "sup", 0)
	toolTurn(sup)
	n := len(sup.Requests())
	c.turn(sup.URL(), tokenA, "first, before continuity", false)
	checkTurn(t, since(sup, n), "acct-A", 2)
	resumeThroughProxy(t, sup, px, execStep, func(base, token, prompt string) (string, error) { return c.tryTurn(base, token, prompt) })

	st := pageState(t, px)
	if len(st.Sessions) != 1 || st.Sessions[0].Client != "Codex" {
		t.Fatalf("sessions %+v, want Codex's thread", st.Sessions)
	}
	unknown, foreign := 0, 0
	for _, tv := range st.Sessions[0].Turns {
		unknown += tv.OmittedUnknown
		foreign += tv.OmittedForeign
	}
	if unknown == 0 || foreign == 0 {
		t.Fatalf("omitted %d of unknown issuer and %d foreign, want both: %+v", unknown, foreign, st.Sessions[0].Turns)
	}
	samePolicies(t, px)
	thread := st.Sessions[0].ID
	if out, code := policyCommand(t, "--data-dir", px.DataDir, thread); code != 0 || out != thread+": on (default)\n" {
		t.Fatalf("continuity policy %s: %d %q", thread, code, out)
	}
	if out, code := policyCommand(t, "--data-dir", px.DataDir, thread, "off"); code != 0 || out != thread+": off (session)\n" {
		t.Fatalf("continuity policy %s off: %d %q", thread, code, out)
	}
	if out, code := policyCommand(t, "--data-dir", px.DataDir, "no-such-session", "on"); code != 2 || !strings.Contains(out, "UNKNOWN_SESSION") {
		t.Fatalf("an unseen session: %d %q", code, out)
	}
	if out, code := policyCommand(t, "--data-dir", px.DataDir, "--create", "not-yet-started", "on"); code != 0 {
		t.Fatalf("--create: %d %q", code, out)
	}
	samePolicies(t, px)

	px.Stop()
	again := startProxy(t, sup.URL(), px.DataDir)
	if again.Secret != px.Secret {
		t.Fatal("the page's secret changed across the restart")
	}
	samePolicies(t, again)
	if st := pageState(t, again); len(st.Sessions) != 1 || st.Sessions[0].ID != thread || st.Sessions[0].Policy != "off" {
		t.Fatalf("after the restart the page lists %+v", st.Sessions)
	}
	for _, secret := range []string{tokenA, tokenB, "gAAAAAB"} {
		if strings.Contains(px.Log(), secret) || bytes.Contains([]byte(again.Log()), []byte(secret)) {
			t.Fatalf("the proxy's log holds %q", secret)
		}
	}
}

// TestOpencodeResumedThroughProxy is TestCodexResumedThroughProxy with the
// real opencode: a session started as A straight at the supplier, then
// continued through the proxy as B, B, A.
func TestOpencodeResumedThroughProxy(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	o := &opencode{t: t, home: t.TempDir(), bin: clientBin(t, "opencode")}
	sup.Script(globStep)
	if out, err := o.run(sup.URL(), tokenA, "first, before continuity", false); err != nil {
		t.Fatalf("first turn: %v\n%s", err, out)
	}
	resumeThroughProxy(t, sup, px, globStep, func(base, token, prompt string) (string, error) { return o.run(base, token, prompt, true) })
	st := pageState(t, px)
	if len(st.Sessions) != 1 || st.Sessions[0].Client != "opencode" {
		t.Fatalf("sessions %+v, want opencode's session", st.Sessions)
	}
	samePolicies(t, px)
}

package proxy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// pi runs the real pi coding agent in one home whose models.json moves the
// built-in openai provider's baseUrl — the README's configuration — with
// --offline, so pi makes no startup network calls.
type pi struct {
	t    *testing.T
	home string
	work string
	bin  string
}

func newPi(t *testing.T) *pi {
	t.Helper()
	p := &pi{t: t, home: t.TempDir(), work: t.TempDir(), bin: clientBin(t, "pi")}
	if err := os.MkdirAll(filepath.Join(p.home, ".pi", "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// run sends prompt through base with key; cont continues the last session.
func (p *pi) run(base, key, prompt string, cont bool) (string, error) {
	p.t.Helper()
	models := `{"providers":{"openai":{"baseUrl":"` + base + `/v1"}}}`
	if err := os.WriteFile(filepath.Join(p.home, ".pi", "agent", "models.json"), []byte(models), 0o644); err != nil {
		p.t.Fatal(err)
	}
	args := []string{"--offline", "-p"}
	if cont {
		args = append(args, "-c")
	}
	args = append(args, "--provider", "openai", "--model", "gpt-5.4", prompt)
	return tryClient(p.t, p.work, baseEnv("HOME="+p.home, "PI_OFFLINE=1", "OPENAI_API_KEY="+key), p.bin, args...)
}

// bashStep is a tool step pi runs: its bash tool with a harmless command.
var bashStep = supplier.Answer{Kind: supplier.ToolCall, Tool: "bash", Arguments: `{"command":"echo step"}`}

// TestPiAccountSwitches runs the real pi through the proxy with the
// README's configuration: a session started with key A, continued with B, B
// again, then A, each turn with a tool step; every request is accepted with
// the turn's reasoning kept on its tool step, and where the account
// switches the same turn sent directly is rejected; the page names the
// client pi.
func TestPiAccountSwitches(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	p := newPi(t)
	sup.Script(bashStep)
	n := len(sup.Requests())
	if out, err := p.run(px.URL, tokenA, "first", false); err != nil {
		t.Fatalf("first turn: %v\n%s", err, out)
	}
	checkTurn(t, since(sup, n), "acct-A", 2)
	playSwitches(t, sup, px, bashStep, func(base, token, prompt string) (string, error) { return p.run(base, token, prompt, true) }, nil)
	if st := pageState(t, px); len(st.Sessions) != 1 || st.Sessions[0].Accounts != 2 || st.Sessions[0].Client != "pi" {
		t.Fatalf("sessions %+v", st.Sessions)
	}
}

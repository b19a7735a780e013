package proxy_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
	"github.com/continuity-dev/continuity/internal/testbin"
)

// hintedCommand finds, in a client's output, the command the proxy's hint
// names, and runs it (the real binary for "continuity") in a POSIX shell
// as a person would paste it.
func hintedCommand(t *testing.T, out string) {
	t.Helper()
	_, rest, ok := strings.Cut(out, "turn it on with: continuity ")
	cmd, _, ok2 := strings.Cut(rest, " (or on the status page")
	if !ok || !ok2 || !strings.HasSuffix(cmd, " on") {
		t.Fatalf("the client did not print the proxy's hint:\n%s", out)
	}
	if b, err := exec.Command("sh", "-c", `"$CONTINUITY" `+cmd).CombinedOutput(); err != nil {
		t.Fatalf("the hinted command %q: %v\n%s", cmd, err, b)
	}
}

// runHinted runs the hinted command with the real binary as continuity.
func runHinted(t *testing.T, out string) {
	t.Helper()
	t.Setenv("CONTINUITY", testbin.Path(t))
	hintedCommand(t, out)
}

// TestHintReachesCodex: with the new-session default off, a thread
// started as A straight at the supplier and resumed as B through the proxy
// is rejected; the real Codex CLI prints the proxy's hint, the command it
// names works pasted into a shell, and the next B turn is accepted.
func TestHintReachesCodex(t *testing.T) {
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "", "--default", "off")
	c := newCodex(t, "sup", 0)
	toolTurn(sup)
	c.turn(sup.URL(), tokenA, "first", false)
	out, err := c.tryTurn(px.URL, tokenB, "as B, policy off")
	if err == nil {
		t.Fatalf("resumed as B with the policy off: accepted\n%s", out)
	}
	runHinted(t, out)
	toolTurn(sup)
	n := len(sup.Requests())
	c.turn(px.URL, tokenB, "as B, policy on", true)
	checkTurn(t, since(sup, n), "acct-B", 2)
}

// TestHintReachesOpencode is TestHintReachesCodex with the real opencode.
func TestHintReachesOpencode(t *testing.T) {
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "", "--default", "off")
	o := &opencode{t: t, home: t.TempDir(), bin: clientBin(t, "opencode")}
	sup.Script(globStep)
	if out, err := o.run(sup.URL(), tokenA, "first", false); err != nil {
		t.Fatalf("first turn: %v\n%s", err, out)
	}
	out, _ := o.run(px.URL, tokenB, "as B, policy off", true)
	runHinted(t, out)
	sup.Script(globStep)
	n := len(sup.Requests())
	if out, err := o.run(px.URL, tokenB, "as B, policy on", true); err != nil {
		t.Fatalf("as B with the policy on: %v\n%s", err, out)
	}
	var turn []supplier.Request
	for _, r := range since(sup, n) {
		if gjsonHas(r.Body, "prompt_cache_key") {
			turn = append(turn, r)
		}
	}
	checkTurn(t, turn, "acct-B", 2)
}

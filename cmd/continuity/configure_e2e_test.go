package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// codexSignIn writes Codex's auth.json as `codex login --with-api-key`
// does, so Codex's own sign-in (requires_openai_auth) carries key.
func codexSignIn(t *testing.T, h *home, key string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"OPENAI_API_KEY": key})
	h.write(t, filepath.Join(".codex", "auth.json"), string(b))
}

// accepted checks that the supplier answered every request of reqs with
// 200 as account, and that there was at least one.
func accepted(t *testing.T, reqs []supplier.Request, account string) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("no request reached the supplier")
	}
	for i, r := range reqs {
		if r.Status != 200 || r.Account != account {
			t.Fatalf("request %d: %d %q as %s, want 200 as %s", i+1, r.Status, r.Problem, r.Account, account)
		}
	}
}

// TestConfigureCodex: README's quick start for Codex on a commented
// config.toml — configure points it at the proxy keeping every comment,
// the real Codex then reaches the supplier through the proxy as account A
// and, switched to B, is accepted; --undo leaves the file byte-identical.
func TestConfigureCodex(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	h := newHome(t)
	qs := quickStart["codex"]
	px := h.startProxy(t, sup.URL(), quickArgs(qs.proxy, sup.URL())[1:]...)
	path := h.write(t, filepath.Join(".codex", "config.toml"), codexConfig)

	if code, out := h.continuity(t, nil, quickArgs(qs.configure, sup.URL(), "--dry-run", "--proxy", px.URL)...); code != 0 ||
		!strings.Contains(out, "-model_provider = \"sup\"") || !strings.Contains(out, "+base_url = \""+px.URL+"/v1\"") {
		t.Fatalf("--dry-run: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(path); string(b) != codexConfig {
		t.Fatal("--dry-run changed the file")
	}
	if code, out := h.continuity(t, nil, quickArgs(qs.configure, sup.URL(), "--proxy", px.URL)...); code != 0 {
		t.Fatalf("configure: exit %d\n%s", code, out)
	}
	after, _ := os.ReadFile(path)
	for _, line := range strings.Split(codexConfig, "\n") {
		if strings.Contains(line, "#") && !strings.Contains(string(after), line) {
			t.Fatalf("configure lost the line %q:\n%s", line, after)
		}
	}
	if code, out := h.continuity(t, nil, quickArgs(qs.configure, sup.URL(), "--proxy", px.URL)...); code != 0 || !strings.Contains(out, "nothing to change") {
		t.Fatalf("configure again: exit %d\n%s", code, out)
	}

	for i, step := range []struct{ token, account string }{{tokenA, "acct-A"}, {tokenB, "acct-B"}} {
		codexSignIn(t, h, step.token)
		toolTurn(sup)
		n := len(sup.Requests())
		if out, err := h.client(t, nil, "codex", codexExec("turn", i > 0)...); err != nil {
			t.Fatalf("codex as %s: %v\n%s", step.account, err, out)
		}
		accepted(t, sup.Requests()[n:], step.account)
	}
	os.Remove(filepath.Join(h.dir, ".codex", "auth.json"))
	if code, out := h.continuity(t, nil, quickArgs(qs.undo, sup.URL())...); code != 0 {
		t.Fatalf("undo: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(path); string(b) != codexConfig {
		t.Fatalf("after --undo config.toml is not what it was:\n%s", b)
	}
}

// opencodeConfig is a person's opencode.json with a comment and a
// trailing comma, which opencode reads, and the key in SUP_KEY.
const opencodeConfig = `{
  // my opencode settings
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "openai/gpt-5.4",
  "small_model": "openai/gpt-5.4",
  "provider": {
    "openai": {
      "options": {"apiKey": "{env:SUP_KEY}"},
      "models": {"gpt-5.4": {"name": "gpt-5.4", "reasoning": true, "tool_call": true}},
    },
  },
}
`

// globStep is a tool step opencode runs without asking.
var globStep = supplier.Answer{Kind: supplier.ToolCall, Tool: "glob", Arguments: `{"pattern":"*"}`}

// TestConfigureOpencode: README's quick start for opencode — the real
// opencode reaches the supplier through the proxy as A and then B, and
// --undo leaves opencode.json byte-identical.
func TestConfigureOpencode(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	h := newHome(t)
	qs := quickStart["opencode"]
	px := h.startProxy(t, sup.URL(), quickArgs(qs.proxy, sup.URL())[1:]...)
	path := h.write(t, filepath.Join(".config", "opencode", "opencode.json"), opencodeConfig)
	if code, out := h.continuity(t, nil, quickArgs(qs.configure, sup.URL(), "--proxy", px.URL)...); code != 0 {
		t.Fatalf("configure: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "// my opencode settings") || !strings.Contains(string(b), px.URL+"/v1") {
		t.Fatalf("configured opencode.json:\n%s", b)
	}
	for i, step := range []struct{ token, account string }{{tokenA, "acct-A"}, {tokenB, "acct-B"}} {
		sup.Script(globStep)
		n := len(sup.Requests())
		args := []string{"run"}
		if i > 0 {
			args = append(args, "--continue")
		}
		if out, err := h.client(t, []string{"SUP_KEY=" + step.token}, "opencode", append(args, "turn")...); err != nil {
			t.Fatalf("opencode as %s: %v\n%s", step.account, err, out)
		}
		accepted(t, sup.Requests()[n:], step.account)
	}
	if code, out := h.continuity(t, nil, quickArgs(qs.undo, sup.URL())...); code != 0 {
		t.Fatalf("undo: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(path); string(b) != opencodeConfig {
		t.Fatalf("after --undo opencode.json is not what it was:\n%s", b)
	}
}

// TestConfigurePi: README's quick start for pi on a machine with no
// models.json: configure creates it pointing at the proxy, undo removes it;
// a malformed one is named and left untouched.
func TestConfigurePi(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	h := newHome(t)
	qs := quickStart["pi"]
	path := filepath.Join(h.dir, ".pi", "agent", "models.json")
	if code, out := h.continuity(t, nil, quickArgs(qs.configure, "")...); code != 0 {
		t.Fatalf("configure: exit %d\n%s", code, out)
	}
	// The default address, then a proxy on a test port: the real pi
	// reaches the supplier through it.
	px := h.startProxy(t, sup.URL(), quickArgs(qs.proxy, sup.URL())[1:]...)
	if code, out := h.continuity(t, nil, quickArgs(qs.configure, "", "--proxy", px.URL)...); code != 0 {
		t.Fatalf("configure --proxy: exit %d\n%s", code, out)
	}
	sup.Script(supplier.Answer{Kind: supplier.ToolCall, Tool: "bash", Arguments: `{"command":"echo step"}`})
	n := len(sup.Requests())
	if out, err := h.client(t, []string{"PI_OFFLINE=1", "OPENAI_API_KEY=" + tokenA}, "pi",
		"--offline", "-p", "--provider", "openai", "--model", "gpt-5.4", "turn"); err != nil {
		t.Fatalf("pi: %v\n%s", err, out)
	}
	accepted(t, sup.Requests()[n:], "acct-A")
	if code, out := h.continuity(t, nil, quickArgs(qs.configure, "")...); code != 0 {
		t.Fatalf("configure back to the default address: exit %d\n%s", code, out)
	}
	var models struct {
		Providers map[string]struct{ BaseURL string } `json:"providers"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &models); err != nil || models.Providers["openai"].BaseURL != "http://127.0.0.1:8788/v1" {
		t.Fatalf("models.json %v:\n%s", err, b)
	}
	if code, out := h.continuity(t, nil, quickArgs(qs.undo, "")...); code != 0 {
		t.Fatalf("undo: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("undo left models.json: %v", err)
	}
	bad := h.write(t, filepath.Join(".pi", "agent", "models.json"), `{"providers": {`)
	if code, out := h.continuity(t, nil, "configure", "pi"); code != 1 || !strings.Contains(out, "malformed") || !strings.Contains(out, bad) {
		t.Fatalf("malformed models.json: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(bad); string(b) != `{"providers": {` {
		t.Fatal("a malformed models.json was changed")
	}
}

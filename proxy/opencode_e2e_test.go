package proxy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// opencodeHome writes, in home, an opencode configuration whose own
// "openai" provider (the AI SDK's Responses client) has its baseURL moved to
// base — how a user points opencode at the proxy — with every update, share
// and model-catalogue fetch turned off; a later run in the same home keeps
// the sessions of an earlier one.
func opencodeHome(t *testing.T, home, base, key string) (env []string, dir string) {
	t.Helper()
	cfg := filepath.Join(home, "config", "opencode")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	conf := `{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "openai/gpt-5.4",
  "small_model": "openai/gpt-5.4",
  "provider": {
    "openai": {
      "options": {"baseURL": "` + base + `/v1", "apiKey": "{env:SUP_KEY}"},
      "models": {"gpt-5.4": {"name": "gpt-5.4", "reasoning": true, "tool_call": true}}
    }
  }
}`
	if err := os.WriteFile(filepath.Join(cfg, "opencode.json"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	return baseEnv("HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "SUP_KEY="+key), work
}

// opencode runs the real opencode CLI in one home; the key and base URL
// change between runs by rewriting its configuration's environment.
type opencode struct {
	t    *testing.T
	home string
	bin  string
}

// run sends prompt through base with key; cont continues the last session.
func (o *opencode) run(base, key, prompt string, cont bool) (string, error) {
	o.t.Helper()
	env, work := opencodeHome(o.t, o.home, base, key)
	args := []string{"run"}
	if cont {
		args = append(args, "--continue")
	}
	return tryClient(o.t, work, env, o.bin, append(args, prompt)...)
}

// globStep is a tool step opencode runs without asking: glob in its folder.
var globStep = supplier.Answer{Kind: supplier.ToolCall, Tool: "glob", Arguments: `{"pattern":"*"}`}

// TestOpencodeAccountSwitches runs the real opencode through the proxy: a
// session started with key A, continued with B, B again, then A, each turn
// with a tool step; every request through the proxy is accepted with the
// turn's own reasoning kept on its tool step, the same turn sent directly is
// rejected, and the title request (no prompt_cache_key, the session only in
// x-session-id) passes unchanged as no turn of the session.
func TestOpencodeAccountSwitches(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	o := &opencode{t: t, home: t.TempDir(), bin: clientBin(t, "opencode")}

	sup.Script(globStep)
	n := len(sup.Requests())
	if out, err := o.run(px.URL, tokenA, "first", false); err != nil {
		t.Fatalf("first turn: %v\n%s", err, out)
	}
	first := since(sup, n)
	var turn []supplier.Request
	titles := 0
	for _, r := range first {
		if gjsonHas(r.Body, "prompt_cache_key") {
			turn = append(turn, r)
		} else {
			titles++
			if r.Status != 200 {
				t.Fatalf("title request: %d %s", r.Status, r.Problem)
			}
		}
	}
	if titles == 0 {
		t.Fatal("opencode sent no title request")
	}
	checkTurn(t, turn, "acct-A", 2)

	// opencode starts slowly, so only the turns that switch accounts are
	// also sent directly (Codex's test covers the one that stays on B).
	playSwitches(t, sup, px, globStep, func(base, token, prompt string) (string, error) { return o.run(base, token, prompt, true) },
		func(out string, err error) bool { return err != nil || strings.Contains(out, "encrypted content") })
	st := pageState(t, px)
	if len(st.Sessions) != 1 || !strings.HasPrefix(st.Sessions[0].ID, "ses_") {
		t.Fatalf("the proxy saw sessions %+v, want only opencode's session", st.Sessions)
	}
	// The title request names the session in x-session-id only and carries
	// no history: a side request, passed unchanged and counted in no turn.
	if turns := st.Sessions[0].Turns; len(turns) != 4 || turns[0].Requests != 2 {
		t.Fatalf("turns %+v, want 4 of 2 requests each (no title request among them)", turns)
	}
	for _, r := range first {
		if !gjsonHas(r.Body, "prompt_cache_key") && r.Header.Get("X-Session-Id") != st.Sessions[0].ID {
			t.Fatalf("the title request carried x-session-id %q, the session is %s", r.Header.Get("X-Session-Id"), st.Sessions[0].ID)
		}
	}
}

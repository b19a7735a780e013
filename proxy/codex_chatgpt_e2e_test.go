package proxy_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// unsignedJWT is a JWT of claims with no signature worth the name: Codex
// reads its ChatGPT id token's claims without verifying them.
func unsignedJWT(claims map[string]any) string {
	b, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString(b) + ".c2ln"
}

// signIn makes Codex's home signed in with ChatGPT as account (the
// chatgpt-account-id it sends) with access token token, freshly refreshed
// so Codex never calls the login server, and points the provider at that
// sign-in instead of SUP_KEY.
func (c *codex) signIn(account, token string) {
	c.t.Helper()
	conf, err := os.ReadFile(filepath.Join(c.home, "config.toml"))
	if err != nil {
		c.t.Fatal(err)
	}
	s := strings.Replace(string(conf), `env_key = "SUP_KEY"`, `requires_openai_auth = true`, 1)
	if err := os.WriteFile(filepath.Join(c.home, "config.toml"), []byte(s), 0o644); err != nil {
		c.t.Fatal(err)
	}
	claims := map[string]any{"email": account + "@example.com", "exp": time.Now().Add(24 * time.Hour).Unix(),
		"https://api.openai.com/auth": map[string]any{"chatgpt_plan_type": "plus", "chatgpt_account_id": account, "chatgpt_user_id": "user-" + account}}
	auth, _ := json.Marshal(map[string]any{"OPENAI_API_KEY": nil, "last_refresh": time.Now().UTC().Format(time.RFC3339),
		"tokens": map[string]any{"id_token": unsignedJWT(claims), "access_token": token, "refresh_token": "refresh-" + account, "account_id": account}})
	if err := os.WriteFile(filepath.Join(c.home, "auth.json"), auth, 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// TestCodexChatGPTCompressed runs the real Codex CLI signed in with
// ChatGPT to a provider named "OpenAI", as README configures it: Codex then
// sends every request zstd-compressed. A thread begun as ChatGPT account A
// and resumed as B is rejected sent directly, and accepted through the
// proxy, which opens the body, omits A's reasoning and sends it on zstd
// again; resumed as A, the thread keeps its own turn's reasoning.
func TestCodexChatGPTCompressed(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	c := newCodex(t, "OpenAI", 0)
	thread := ""
	run := func(base, account, token, prompt string) (string, error) {
		c.signIn(account, token)
		args := c.args(base, prompt, false)
		if thread != "" {
			// By id: `resume --last` only lists the signed-in account's threads.
			args = append(args[:len(args)-1], "resume", thread, prompt)
		}
		return tryClient(t, c.work, baseEnv("HOME="+c.home, "CODEX_HOME="+c.home), c.bin, args...)
	}
	compressed := func(reqs []supplier.Request) {
		t.Helper()
		for _, r := range reqs {
			if r.Path == "/v1/responses" && r.Encoding != "zstd" {
				t.Fatalf("a request reached the supplier with Content-Encoding %q, want zstd", r.Encoding)
			}
		}
	}

	toolTurn(sup)
	n := len(sup.Requests())
	out, err := run(px.URL, "chatgpt-A", tokenA, "first")
	if err != nil {
		t.Fatalf("first turn: %v\n%s", err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if id, ok := strings.CutPrefix(line, "session id: "); ok {
			thread = strings.TrimSpace(id)
		}
	}
	if thread == "" {
		t.Fatalf("codex printed no session id:\n%s", out)
	}
	compressed(since(sup, n))
	checkTurn(t, since(sup, n), "acct-A", 2)

	n = len(sup.Requests())
	out, err = run(sup.URL(), "chatgpt-B", tokenB, "direct as B")
	direct := since(sup, n)
	if err == nil || len(direct) == 0 || direct[len(direct)-1].Status != 400 || !strings.HasPrefix(direct[len(direct)-1].Problem, "foreign") {
		t.Fatalf("the resume sent directly as B was not rejected: %v %s\n%s", err, lastProblem(direct), out)
	}
	compressed(direct)

	for _, step := range []struct{ chatgpt, token, account string }{{"chatgpt-B", tokenB, "acct-B"}, {"chatgpt-A", tokenA, "acct-A"}} {
		toolTurn(sup)
		n = len(sup.Requests())
		if out, err := run(px.URL, step.chatgpt, step.token, "as "+step.account); err != nil {
			t.Fatalf("resumed as %s through the proxy: %v\n%s", step.account, err, out)
		}
		compressed(since(sup, n))
		checkTurn(t, since(sup, n), step.account, 2)
	}
	st := pageState(t, px)
	if len(st.Sessions) != 1 || st.Sessions[0].Accounts != 2 {
		t.Fatalf("sessions %+v, want one thread seen with two ChatGPT accounts", st.Sessions)
	}
}

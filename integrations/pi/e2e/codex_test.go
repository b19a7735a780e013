package e2e_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// chatgpt is one ChatGPT subscription as pi's /login for openai-codex
// stores it: the account id inside the access token, which pi sends as
// chatgpt-account-id, and the refresh token, which stays the account's
// while the access token rotates.
type chatgpt struct {
	name    string // the supplier double's account
	id      string // chatgpt_account_id
	access  string
	refresh string
}

// accessToken is an unsigned JWT naming the ChatGPT account, as pi reads
// it (without verifying it). pi decodes the claims with atob, which takes
// the standard base64 alphabet only, so the claims are padded until their
// base64url form has none of the two characters the alphabets differ in.
func accessToken(accountID string) string {
	enc := base64.RawURLEncoding
	for pad := ""; ; pad += "x" {
		claims, _ := json.Marshal(map[string]any{"exp": 4102444800, "pad": pad,
			"https://api.openai.com/auth": map[string]any{"chatgpt_account_id": accountID, "chatgpt_plan_type": "plus"}})
		if body := enc.EncodeToString(claims); !strings.ContainsAny(body, "-_") {
			return enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + body + ".c2ln"
		}
	}
}

// newCodexRig is a rig whose pi uses the openai-codex provider (ChatGPT
// subscription), signed in as ChatGPT account a of the two it returns: the
// supplier double authenticates the accounts' access tokens (with the keys
// of supplier.PiAI) and serves ChatGPT's /backend-api/codex/responses,
// where models.json points the provider's base URL. pi 1.x lists no
// gpt-5.4 for the provider and uses its own default model instead.
func newCodexRig(t *testing.T, line piLine) (r *rig, a, b chatgpt) {
	t.Helper()
	cfg := supplier.PiAI()
	accts := make([]chatgpt, len(cfg.Accounts))
	for i := range cfg.Accounts {
		name := cfg.Accounts[i].Name
		id := "chatgpt-" + name
		accts[i] = chatgpt{name: name, id: id, access: accessToken(id), refresh: "rt_" + name + "_refresh"}
		cfg.Accounts[i].Token = accts[i].access
	}
	r = newRigWith(t, line, cfg)
	r.write("models.json", map[string]any{"providers": map[string]any{"openai-codex": map[string]any{"baseUrl": r.sup.URL() + "/backend-api"}}})
	r.write("settings.json", map[string]any{"defaultProvider": "openai-codex", "defaultModel": "gpt-5.4"})
	r.signIn(accts[0])
	return r, accts[0], accts[1]
}

// signIn stores a's OAuth credential in auth.json, as pi's /login does,
// fresh for a day so pi never calls the login server to refresh it.
func (r *rig) signIn(a chatgpt) {
	r.t.Helper()
	r.write("auth.json", map[string]any{"openai-codex": map[string]any{"type": "oauth", "access": a.access,
		"refresh": a.refresh, "expires": time.Now().Add(24 * time.Hour).UnixMilli(), "accountId": a.id}})
}

// TestPrintOpenAICodexAccountSwitches is ChatGPT account A → B → A through
// pi's openai-codex provider, each turn with a tool step, in a session
// born after activation (policy on): every request reaches ChatGPT's Codex
// endpoint as its account, with its chatgpt-account-id, and is accepted;
// the bytes the supplier received are the plugin's output; the first step
// of a turn after a switch carries no earlier reasoning.
func TestPrintOpenAICodexAccountSwitches(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r, a, b := newCodexRig(t, line)
			r.activate()
			turns := []chatgpt{a, b, a}
			for i, acct := range turns {
				r.signIn(acct)
				if res := r.print("", "list the files"); res.err != nil || strings.TrimSpace(res.stdout) == "" {
					t.Fatalf("turn %d as %s: %v\nstdout:\n%s\nstderr:\n%s", i+1, acct.name, res.err, res.stdout, res.stderr)
				}
			}
			reqs, trs := r.sup.Requests(), r.traces()
			if len(reqs) != 2*len(turns) || len(trs) != len(reqs) {
				t.Fatalf("supplier saw %d requests, the extension traced %d; want %d (a tool step and an answer per turn)", len(reqs), len(trs), 2*len(turns))
			}
			for i, req := range reqs {
				acct := turns[i/2]
				if req.Status != 200 || req.Account != acct.name {
					t.Fatalf("request %d: %d %q as %q, want accepted as %s", i+1, req.Status, req.Problem, req.Account, acct.name)
				}
				if req.Path != "/backend-api/codex/responses" || req.Header.Get("Chatgpt-Account-Id") != acct.id {
					t.Fatalf("request %d went to %s with chatgpt-account-id %q, want ChatGPT's Codex endpoint with %s",
						i+1, req.Path, req.Header.Get("Chatgpt-Account-Id"), acct.id)
				}
				if got := sha(req.Body); got != trs[i].SHA256 {
					t.Fatalf("request %d: the supplier received bytes with sha256 %s, the plugin's output has %s", i+1, got, trs[i].SHA256)
				}
			}
			for turn := 1; turn < len(turns); turn++ {
				if ids := reasoningIDs(t, reqs[2*turn].Body); len(ids) != 0 || trs[2*turn].Outcome != "filtered" || trs[2*turn].Omitted.Items != 2*turn {
					t.Fatalf("turn %d step 1 carries reasoning %v (%+v); want the %d earlier items omitted", turn+1, ids, trs[2*turn], 2*turn)
				}
				if kept := reasoningIDs(t, reqs[2*turn+1].Body); len(kept) != 1 {
					t.Fatalf("turn %d step 2 carries reasoning %v; want exactly the tool step's own", turn+1, kept)
				}
			}
		})
	}
}

// TestPrintOpenAICodexSwitchWithPolicyOff: a session born before
// activation stays off, so ChatGPT account B's turn replays A's reasoning
// and is rejected, and the extension shows the switch and the rejection
// offer. The supplier sees only that body: whatever pi re-sends of it on
// its own is the same bytes, and the extension sends nothing else.
func TestPrintOpenAICodexSwitchWithPolicyOff(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r, _, b := newCodexRig(t, line)
			if res := r.print("", "list the files"); res.err != nil {
				t.Fatalf("turn 1 as A: %v\n%s", res.err, res.stderr)
			}
			before := len(r.sup.Requests())
			r.signIn(b)
			res := r.print("", "list the files")
			after := r.sup.Requests()[before:]
			if len(after) == 0 {
				t.Fatal("the switched turn never reached the supplier")
			}
			for i, req := range after {
				if req.Status != 400 || !strings.HasPrefix(req.Problem, "foreign") || req.Account != "acct-B" || string(req.Body) != string(after[0].Body) {
					t.Fatalf("request %d of the switched turn: %d %q as %s (want B's replay of A's reasoning rejected, the same bytes each time)",
						i+1, req.Status, req.Problem, req.Account)
				}
			}
			if n := strings.Count(res.stderr, "The supplier rejected this request"); n != 1 {
				t.Fatalf("the rejection is said %d times, want once:\n%s", n, res.stderr)
			}
			for _, want := range []string{
				"You switched to a different account",
				"The supplier rejected this request because",
				"Enable visible-history continuation",
			} {
				if !strings.Contains(res.stderr, want) {
					t.Fatalf("stderr lacks %q:\n%s", want, res.stderr)
				}
			}
		})
	}
}

package proxy

import (
	"net/http"
	"testing"
)

// TestReadKeys: the session is the body's prompt_cache_key, else Codex's
// turn metadata, else the session headers in their order; a request named
// by a header alone that carries no history is a side request.
func TestReadKeys(t *testing.T) {
	h := http.Header{}
	h.Set("Originator", "codex_exec")
	h.Set(codexTurnHeader, `{"session_id":"s","thread_id":"th","turn_id":"t1"}`)
	k, _ := readKeys(h, []byte(`{"input":[{"role":"user","content":"q"},{"type":"function_call_output","call_id":"c","output":"o"}]}`))
	if k.session != "th" || k.turnID != "t1" || k.client != "Codex" || k.users != 1 || !k.lastTool || k.lastUser {
		t.Fatalf("%+v", k)
	}
	k, _ = readKeys(http.Header{"User-Agent": {"opencode/1.18 ai-sdk/4"}}, []byte(`{"prompt_cache_key":"ses_1","input":[{"role":"user","content":"a"},{"type":"message","role":"user","content":"b"}]}`))
	if k.session != "ses_1" || k.client != "opencode" || k.users != 2 || !k.lastUser {
		t.Fatalf("%+v", k)
	}
	// opencode's title request: its session only in headers, no history.
	title := http.Header{"X-Session-Id": {"ses_1"}, "X-Session-Affinity": {"ses_1"}}
	k, _ = readKeys(title, []byte(`{"input":[{"role":"developer","content":"title it"},{"role":"user","content":"q"}]}`))
	if k.session != "ses_1" || !k.side() {
		t.Fatalf("title request: %+v", k)
	}
	k, _ = readKeys(title, []byte(`{"prompt_cache_key":"ses_1","input":[{"role":"user","content":"q"}]}`))
	if k.session != "ses_1" || k.side() {
		t.Fatalf("a prompt_cache_key request is a side request: %+v", k)
	}
	k, _ = readKeys(title, []byte(`{"input":[{"role":"user","content":"q"},{"type":"reasoning","encrypted_content":"x"}]}`))
	if k.session != "ses_1" || k.side() || !k.history {
		t.Fatalf("a header-keyed request with history is a side request: %+v", k)
	}
	for _, c := range []struct {
		h    http.Header
		want string
	}{
		{http.Header{"Thread-Id": {"th"}, "Session-Id": {"se"}, "X-Session-Id": {"x"}}, "th"},
		{http.Header{"Session-Id": {"se"}, "X-Session-Id": {"x"}, "Session_id": {"pi"}}, "se"},
		{http.Header{"X-Session-Affinity": {"aff"}, "Session_id": {"pi"}}, "aff"},
		{http.Header{"Session_id": {"pi"}}, "pi"},
		{http.Header{codexTurnHeader: {`{"session_id":"meta"}`}, "Thread-Id": {"th"}}, "meta"},
		{http.Header{}, ""},
	} {
		if k, _ := readKeys(c.h, []byte(`{"input":[]}`)); k.session != c.want || k.byHeader != (c.want != "" && c.want != "meta") {
			t.Errorf("%v: session %q (by header %v), want %q", c.h, k.session, k.byHeader, c.want)
		}
	}
}

// TestNewTurn: the client's turn id, then x-initiator, then the input's shape.
func TestNewTurn(t *testing.T) {
	for i, c := range []struct {
		k     requestKeys
		last  string
		users int
		first bool
		want  bool
	}{
		{requestKeys{}, "", 0, true, true},
		{requestKeys{turnID: "t1"}, "t1", 3, false, false},
		{requestKeys{turnID: "t2", lastTool: true}, "t1", 3, false, true},
		{requestKeys{initiator: "user", lastTool: true}, "", 3, false, true},
		{requestKeys{initiator: "agent", lastUser: true, users: 9}, "", 3, false, false},
		{requestKeys{lastTool: true, users: 4}, "", 3, false, false},
		{requestKeys{lastUser: true, users: 4}, "", 3, false, true},
		{requestKeys{lastUser: true, users: 3}, "", 3, false, false},
	} {
		if got := c.k.newTurn(c.last, c.users, c.first); got != c.want {
			t.Errorf("%d: newTurn = %v", i, got)
		}
	}
}

// TestAccountOf: ChatGPT's account id wins over the bearer token, which
// wins over x-api-key; the digest never shows the credential.
func TestAccountOf(t *testing.T) {
	bearer := http.Header{"Authorization": {"Bearer sk-secret"}}
	a, ok := accountOf(bearer)
	b, _ := accountOf(http.Header{"Authorization": {"Bearer sk-secret"}, "Chatgpt-Account-Id": {"acc-1"}})
	c, _ := accountOf(http.Header{"Chatgpt-Account-Id": {"acc-1"}, "Authorization": {"Bearer rotated"}})
	d, okKey := accountOf(http.Header{"X-Api-Key": {"sk-secret"}})
	if !ok || !okKey || a == b || b != c || a == d || len(a.Short()) != 8 {
		t.Fatalf("digests %s %s %s %s", a.Short(), b.Short(), c.Short(), d.Short())
	}
	if _, ok := accountOf(http.Header{"Authorization": {"Basic dXNlcg=="}}); ok {
		t.Fatal("a non-bearer Authorization named an account")
	}
}

// TestScanBody: escaped names and values are read as JSON means them, a
// non-string key is no session, and a body the scan cannot follow places
// nothing (it is passed on natively).
func TestScanBody(t *testing.T) {
	k, err := scanBody([]byte(`{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"a\"]}"}]},` +
		`{"ro\u006ce":"user","content":"b"},{"type":"custom_tool_call_output","call_id":"c","output":"o"}],"prompt_cache_key":"s\u00e9"}`))
	if err != nil || k.session != "sé" || k.users != 2 || !k.lastTool || k.lastUser {
		t.Fatalf("%+v %v", k, err)
	}
	if k, err := scanBody([]byte(`{"prompt_cache_key":7,"input":"text"}`)); err != nil || k.session != "" || k.users != 0 {
		t.Fatalf("%+v %v", k, err)
	}
	for _, bad := range []string{`[1,2]`, `{"input":[{"role":"user"}`, `{"input":[{"role" "user"}]}`} {
		if _, err := scanBody([]byte(bad)); err == nil {
			t.Errorf("%s: placed", bad)
		}
	}
}

// TestClientOf: clients are named in words; pi through the OpenAI SDK is
// told from another SDK client by the session it sends as
// x-client-request-id.
func TestClientOf(t *testing.T) {
	for _, c := range []struct {
		h    http.Header
		want string
	}{
		{http.Header{"Originator": {"codex_cli_rs"}}, "Codex"},
		{http.Header{"Originator": {"pi"}, "User-Agent": {"pi (linux)"}}, "pi"},
		{http.Header{"User-Agent": {"OpenAI/JS 5.12.2"}, "X-Client-Request-Id": {"s1"}}, "pi"},
		{http.Header{"User-Agent": {"OpenAI/JS 5.12.2"}}, "OpenAI/JS"},
		{http.Header{"User-Agent": {"opencode/1.18.33 ai-sdk/provider-utils/3"}}, "opencode"},
		{http.Header{"User-Agent": {"curl/8.5.0"}}, "curl/8.5.0"},
	} {
		if got := clientOf(c.h); got != c.want {
			t.Errorf("%v: %q, want %q", c.h, got, c.want)
		}
	}
}

package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// history is a test client's conversation, sent as JSON requests.
type history struct {
	t     *testing.T
	url   string
	items []any
	// byHeader, when set, names the session in pi-ai's session_id header
	// instead of prompt_cache_key.
	byHeader string
}

// send posts the history plus extra as token and, when accepted, adds
// extra and the response's output to the history; it returns what the
// supplier received.
func (h *history) send(sup *supplier.Server, token string, extra ...any) supplier.Request {
	h.t.Helper()
	input := append(append([]any{}, h.items...), extra...)
	m := map[string]any{"model": "m", "input": input, "prompt_cache_key": "rules-session",
		"include": []string{"reasoning.encrypted_content"}, "tools": []any{map[string]any{"type": "function", "name": "f"}}}
	if h.byHeader != "" {
		delete(m, "prompt_cache_key")
	}
	body, _ := json.Marshal(m)
	req, _ := http.NewRequest("POST", h.url+"/v1/responses", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if h.byHeader != "" {
		req.Header["session_id"] = []string{h.byHeader} // as pi-ai spells it
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	log := sup.Requests()
	got := log[len(log)-1]
	if resp.StatusCode == 200 {
		var r struct{ Output []any }
		json.Unmarshal(b, &r)
		h.items = append(append(h.items, extra...), r.Output...)
	}
	return got
}

func userMsg(text string) any { return map[string]any{"role": "user", "content": text} }

func toolResult(call string) any {
	return map[string]any{"type": "function_call_output", "call_id": call, "output": "ok"}
}

// ids lists the reasoning items a request carried, by what their content
// was minted for.
func ids(t *testing.T, r supplier.Request) []string {
	var req struct{ Input []map[string]any }
	if err := json.Unmarshal(r.Body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range req.Input {
		if it["type"] == "reasoning" {
			id, _ := supplier.MintedFor(it["encrypted_content"].(string))
			out = append(out, id)
		}
	}
	return out
}

func testSupplier(t *testing.T) *supplier.Server {
	sup, err := supplier.Start(supplier.PiAI())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close() })
	return sup
}

// TestTurnRule: under the plugin's rule a turn omits the reasoning present
// at its first request and keeps what it made itself on its tool steps,
// even without an account switch.
func TestTurnRule(t *testing.T) {
	sup := testSupplier(t)
	_, px := newTestProxy(t, sup.URL(), RuleTurn)
	h := &history{t: t, url: px.URL}
	if r := h.send(sup, "acct-A", userMsg("one")); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if r := h.send(sup, "acct-A", toolResult("call_1")); r.Status != 200 || len(ids(t, r)) != 1 {
		t.Fatalf("tool step: %d %v", r.Status, ids(t, r))
	}
	r := h.send(sup, "acct-A", userMsg("two"))
	if r.Status != 200 || len(ids(t, r)) != 0 {
		t.Fatalf("next turn: %d keeps %v", r.Status, ids(t, r))
	}
	if r := h.send(sup, "acct-A", toolResult("call_3")); r.Status != 200 || len(ids(t, r)) != 1 || ids(t, r)[0] != "rs_3" {
		t.Fatalf("its tool step: %d %v", r.Status, ids(t, r))
	}
}

// TestProvenanceUnknownIssuer: reasoning the proxy never saw issued is
// omitted and counted as of unknown issuer, even while the session has used
// one account; what the proxy saw issued to the account in use is kept, and
// what it saw issued to another is omitted and counted as foreign.
func TestProvenanceUnknownIssuer(t *testing.T) {
	sup := testSupplier(t)
	p, px := newTestProxy(t, sup.URL(), "")
	old := []any{userMsg("before the proxy"),
		map[string]any{"type": "reasoning", "id": "rs_50", "summary": []any{}, "encrypted_content": sup.Mint("acct-A", "rs_50")},
		map[string]any{"type": "message", "id": "msg_50", "role": "assistant", "content": []any{}}}
	h := &history{t: t, url: px.URL, items: old}
	r := h.send(sup, "acct-A", userMsg("q"))
	if r.Status != 200 || len(ids(t, r)) != 0 || bytes.Contains(r.Body, []byte(`"msg_50"`)) {
		t.Fatalf("unknown issuer, one account: %d %v", r.Status, ids(t, r))
	}
	if r := h.send(sup, "acct-A", toolResult("call_51")); r.Status != 200 || len(ids(t, r)) != 1 || ids(t, r)[0] != "rs_51" {
		t.Fatalf("issued through the proxy to the account in use: %d %v", r.Status, ids(t, r))
	}
	if r := h.send(sup, "acct-B", userMsg("q2")); r.Status != 200 || len(ids(t, r)) != 0 {
		t.Fatalf("two accounts: %d %v", r.Status, ids(t, r))
	}
	v := p.sessions.views()[0]
	first, last := v.Turns[0], v.Turns[len(v.Turns)-1]
	if v.Accounts != 2 || first.OmittedUnknown != 2 || first.OmittedForeign != 0 || first.OmittedReasoning != 2 ||
		last.OmittedUnknown != 1 || last.OmittedForeign != 2 || last.OmittedReasoning != 3 {
		t.Fatalf("%+v", v)
	}
}

// TestPipelined: a body of a MiB or more is sent while it is filtered
// (chunked), with the same omissions as a small one; a malformed one is cut
// off and answered as the filter's named error.
func TestPipelined(t *testing.T) {
	sup := testSupplier(t)
	p, px := newTestProxy(t, sup.URL(), "")
	h := &history{t: t, url: px.URL}
	h.send(sup, "acct-A", userMsg(string(bytes.Repeat([]byte("x"), pipelineFrom))))
	r := h.send(sup, "acct-B", userMsg("now B"))
	if r.Status != 200 || len(ids(t, r)) != 0 || r.Header != nil && r.Header.Get("Content-Length") != "" {
		t.Fatalf("pipelined switch: %d keeps %v", r.Status, ids(t, r))
	}
	if v := p.sessions.views()[0]; v.Turns[len(v.Turns)-1].OmittedReasoning != 1 {
		t.Fatalf("%+v", v.Turns)
	}
	bad := append([]byte(`{"prompt_cache_key":"rules-session","input":[{"type":"reasoning","encrypted_content":"`), bytes.Repeat([]byte("y"), pipelineFrom)...)
	bad = append(bad, `"},]}`...)
	req, _ := http.NewRequest("POST", px.URL+"/v1/responses", bytes.NewReader(bad))
	req.Header.Set("Authorization", "Bearer acct-B")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !bytes.Contains(b, []byte(`INVALID_PAYLOAD","message"`)) {
		t.Fatalf("malformed pipelined body: %d %s", resp.StatusCode, b)
	}
}

// TestSessionHeaders: a client that names its session only in a header is
// filtered like one that sends prompt_cache_key. Its first request, with no
// history yet, is a side request: passed byte for byte and no turn, but
// its account and what its answer issues are recorded, so when the next
// request comes from B the reasoning A was issued is omitted.
func TestSessionHeaders(t *testing.T) {
	sup := testSupplier(t)
	p, px := newTestProxy(t, sup.URL(), "")
	h := &history{t: t, url: px.URL, byHeader: "header-session"}
	first := h.send(sup, "acct-A", userMsg("one"))
	sent, _ := json.Marshal(map[string]any{"model": "m", "input": []any{userMsg("one")},
		"include": []string{"reasoning.encrypted_content"}, "tools": []any{map[string]any{"type": "function", "name": "f"}}})
	if first.Status != 200 || !bytes.Equal(first.Body, sent) {
		t.Fatalf("side request: %d, reached the supplier as %s", first.Status, first.Body)
	}
	if v := p.sessions.views(); len(v) != 1 || v[0].ID != "header-session" || len(v[0].Turns) != 0 {
		t.Fatalf("after the side request: %+v", v)
	}
	if r := h.send(sup, "acct-B", userMsg("two")); r.Status != 200 || len(ids(t, r)) != 0 {
		t.Fatalf("as B: %d keeps %v", r.Status, ids(t, r))
	}
	if r := h.send(sup, "acct-B", toolResult("call_2")); r.Status != 200 || len(ids(t, r)) != 1 {
		t.Fatalf("B's tool step: %d %v", r.Status, ids(t, r))
	}
	v := p.sessions.views()[0]
	if v.Accounts != 2 || len(v.Turns) != 1 || v.Turns[0].Requests != 2 || v.Turns[0].OmittedReasoning != 2 {
		t.Fatalf("%+v", v)
	}
}

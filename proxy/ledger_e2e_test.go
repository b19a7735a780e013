package proxy_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// reasoningSent counts the reasoning items of the supplier's last request.
func reasoningSent(t *testing.T, sup *supplier.Server) int {
	t.Helper()
	log := sup.Requests()
	var req struct {
		Input []struct{ Type string } `json:"input"`
	}
	if err := json.Unmarshal(log[len(log)-1].Body, &req); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range req.Input {
		if it.Type == "reasoning" {
			n++
		}
	}
	return n
}

// TestProvenanceAcrossRestart: the real binary keeps who issued each item,
// and which accounts each session used, in the data directory, so a
// restart between account A's turn and account B's resume still omits A's
// reasoning; a session that never switches keeps all of its reasoning
// across the restart; and a session seen with two accounts before the
// restart still omits reasoning of unknown issuer after it.
func TestProvenanceAcrossRestart(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	dir := t.TempDir()
	before := startProxy(t, sup.URL(), dir)

	switched := &responsesClient{t: t, base: before.URL, session: "restart-switch"}
	same := &responsesClient{t: t, base: before.URL, session: "restart-same"}
	// Reasoning B issued before this proxy ever ran: of unknown issuer.
	old, _ := json.Marshal(map[string]any{"type": "reasoning", "id": "rs_90", "summary": []any{},
		"encrypted_content": sup.Mint("acct-B", "rs_90")})
	multi := &responsesClient{t: t, base: before.URL, session: "restart-multi",
		history: []json.RawMessage{[]byte(`{"role":"user","content":"before the proxy"}`), old,
			[]byte(`{"type":"message","id":"msg_90","role":"assistant","content":[{"type":"output_text","text":"hi"}]}`)}}
	for _, step := range []struct {
		c     *responsesClient
		token string
	}{{switched, tokenA}, {same, tokenA}, {same, tokenA}, {multi, tokenB}, {multi, tokenA}} {
		if st, _ := step.c.send(step.token, "before the restart"); st != 200 {
			log := sup.Requests()
			t.Fatalf("%s before the restart: %d %s", step.c.session, st, log[len(log)-1].Problem)
		}
	}
	before.Stop()

	after := startProxy(t, sup.URL(), dir)
	switched.base, same.base, multi.base = after.URL, after.URL, after.URL
	if st, _ := switched.send(tokenB, "resumed as B"); st != 200 || reasoningSent(t, sup) != 0 {
		t.Fatalf("B's resume after the restart: %d, %d reasoning items sent", st, reasoningSent(t, sup))
	}
	if st, _ := same.send(tokenA, "still A"); st != 200 || reasoningSent(t, sup) != 2 {
		t.Fatalf("the same account after the restart: %d, %d of 2 reasoning items kept", st, reasoningSent(t, sup))
	}
	if st, _ := multi.send(tokenA, "A again"); st != 200 || reasoningSent(t, sup) != 1 {
		t.Fatalf("a two-account session after the restart: %d, %d reasoning items sent (only A's last one may go)", st, reasoningSent(t, sup))
	}
	for _, s := range pageState(t, after).Sessions {
		if s.ID == "restart-multi" && s.Accounts != 2 {
			t.Fatalf("restart-multi shows %d accounts, the ledger knows 2", s.Accounts)
		}
	}
}

// TestProvenanceBetweenTwoProxies: two proxies on one data directory share
// the ledger, so a thread begun through one as A and resumed through the
// other as B omits A's reasoning.
func TestProvenanceBetweenTwoProxies(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	dir := t.TempDir()
	one, two := startProxy(t, sup.URL(), dir), startProxy(t, sup.URL(), dir)
	c := &responsesClient{t: t, base: one.URL, session: "two-proxies"}
	c.accept(tokenA, "through one")
	c.base = two.URL
	if st, _ := c.send(tokenB, "through two as B"); st != 200 || reasoningSent(t, sup) != 0 {
		t.Fatalf("through the second proxy: %d, %d reasoning items sent", st, reasoningSent(t, sup))
	}
}

// TestBirthAcrossRestart: a session's creation-time default is chosen by
// when it was first seen, and the ledger keeps that across a restart: a
// session first seen while new sessions defaulted on stays on after the
// default is turned off and the proxy restarted, so B's resume is
// filtered and accepted; a session first seen after the change is off.
func TestBirthAcrossRestart(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	dir := t.TempDir()
	before := startProxy(t, sup.URL(), dir)
	early := &responsesClient{t: t, base: before.URL, session: "born-early"}
	early.accept(tokenA, "while the default is on")
	before.Stop()
	time.Sleep(5 * time.Millisecond) // the change is strictly later than the birth
	if code, out := continuity(t, "policy", "--data-dir", dir, "--default", "off"); code != 0 {
		t.Fatalf("%d %s", code, out)
	}
	time.Sleep(5 * time.Millisecond)
	after := startProxy(t, sup.URL(), dir)
	early.base = after.URL
	if st, _ := early.send(tokenB, "resumed as B after the restart"); st != 200 || reasoningSent(t, sup) != 0 {
		t.Fatalf("a session born under the default on: %d, %d reasoning items sent", st, reasoningSent(t, sup))
	}
	late := &responsesClient{t: t, base: after.URL, session: "born-late"}
	late.send(tokenA, "after the change")
	if st, _ := late.send(tokenB, "as B"); st != 400 {
		t.Fatalf("a session born after the default went off was filtered: %d", st)
	}
	for _, s := range pageState(t, after).Sessions {
		if want := map[string]string{"born-early": "on", "born-late": "off"}[s.ID]; s.Policy != want || s.Source != "default" {
			t.Fatalf("%s: %s from %s, want %s from the default", s.ID, s.Policy, s.Source, want)
		}
	}
}

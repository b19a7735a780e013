package proxy_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/proxy"
	"github.com/continuity-dev/continuity/sqlstore"
)

// TestLongSessionKeys (R2): eight requests whose prompt_cache_key is 8 MiB
// each are placed under the key's fixed-length digest, so the ledger, the
// page's state and the log stay small, and no log line, at debug level,
// holds the key.
func TestLongSessionKeys(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "", "--log-level", "debug")
	keys := make([]string, 8)
	for i := range keys {
		keys[i] = strings.Repeat(string(rune('a'+i)), 8<<20)
		c := &responsesClient{t: t, base: px.URL, session: keys[i]}
		c.accept(tokenA, "hello")
		if i == 0 { // the omission is logged, naming the session
			c.accept(tokenB, "as B")
		}
	}
	st := pageState(t, px)
	if len(st.Sessions) != len(keys) {
		t.Fatalf("%d sessions on the page, want %d", len(st.Sessions), len(keys))
	}
	for _, s := range st.Sessions {
		if !strings.HasPrefix(s.ID, proxy.DigestPrefix) || len(s.ID) != len(proxy.DigestPrefix)+32 {
			t.Fatalf("a long key is listed as %d characters %.40q…", len(s.ID), s.ID)
		}
	}
	b, _ := json.Marshal(st)
	if len(b) > 64<<10 {
		t.Fatalf("the page's state is %d bytes", len(b))
	}
	px.Stop()
	var db int64
	matches, _ := filepath.Glob(filepath.Join(px.DataDir, sqlstore.FileName+"*"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil {
			db += fi.Size()
		}
	}
	if db == 0 || db > 4<<20 {
		t.Fatalf("continuity.db and its journal hold %d bytes after 8 keys of 8 MiB", db)
	}
	log := px.Log()
	if !strings.Contains(log, proxy.SessionID(keys[0])) {
		t.Fatalf("the log does not name the session by its digest:\n%.2000s", log)
	}
	for _, k := range keys {
		if strings.Contains(log, k[:256]) {
			t.Fatalf("the log holds a long key (%d bytes of log)", len(log))
		}
	}
}

// TestControlCharacterSessionKey (R6): a key holding CR and LF is one
// session under its digest: the hint names it, the command it names
// stores a row the proxy then applies, the page lists and toggles it, and
// `continuity policy` reads back what the page shows.
func TestControlCharacterSessionKey(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	dir := t.TempDir()
	px := startProxy(t, sup.URL(), dir, "--default", "off")
	raw := "crlf\r\nX-Injected: yes\u200b"
	id := proxy.SessionID(raw)
	if id == raw || !strings.HasPrefix(id, proxy.DigestPrefix) {
		t.Fatalf("SessionID(%q) = %q", raw, id)
	}
	c := &responsesClient{t: t, base: px.URL, session: raw}
	c.accept(tokenA, "hello")
	st, hint := c.send(tokenB, "as B, policy off")
	want := "continuity policy --data-dir " + dir + " " + id + " on"
	if st != 400 || !strings.Contains(hint, want) {
		t.Fatalf("policy off: %d, hint %q, want it to hold %q", st, hint, want)
	}
	c.history = c.history[:len(c.history)-1]
	cmd := strings.Fields(want)[1:]
	if code, out := continuity(t, cmd...); code != 0 {
		t.Fatalf("the hinted command %v: %d %s", cmd, code, out)
	}
	c.accept(tokenB, "as B, policy on")
	if code, out := continuity(t, "policy", "--data-dir", dir, id); code != 0 || !strings.Contains(out, ": on (session)") {
		t.Fatalf("continuity policy %s: %d %s", id, code, out)
	}
	var found bool
	for _, s := range pageState(t, px).Sessions {
		if s.ID == id {
			found = true
			if s.Policy != "on" || s.Source != "session" {
				t.Fatalf("the page shows %s %s for the session the command turned on", s.Policy, s.Source)
			}
		}
	}
	if !found {
		t.Fatalf("the page does not list %s", id)
	}
	// The page's own toggle works on the same id.
	body, _ := json.Marshal(map[string]string{"session": id, "policy": "off"})
	req, _ := http.NewRequest(http.MethodPost, px.URL+"/continuity/session", bytes.NewReader(body))
	req.Header.Set(proxy.SecretHeader, px.Secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", px.URL)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the page's toggle for %s: %d", id, resp.StatusCode)
	}
	if code, out := continuity(t, "policy", "--data-dir", dir, id); code != 0 || !strings.Contains(out, ": off (session)") {
		t.Fatalf("after the page turned it off: %d %s", code, out)
	}
}

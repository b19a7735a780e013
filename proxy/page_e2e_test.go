package proxy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/proxy"
)

// responsesClient is a minimal Responses client for the tests that are not
// about a particular client: it keeps one session's history and sends it,
// streamed, as one account.
type responsesClient struct {
	t       *testing.T
	base    string
	session string
	history []json.RawMessage
	// coding, when "zstd", "gzip" or "deflate", compresses each request body so, as
	// Codex does when signed in with ChatGPT.
	coding string
	// sent is the last request body as it went on the wire.
	sent []byte
}

// accept sends like send and fails the test unless the request is
// accepted.
func (c *responsesClient) accept(token, text string) {
	c.t.Helper()
	if st, hint := c.send(token, text); st != 200 {
		c.t.Fatalf("%s: %q answered %d (hint %q)", c.session, text, st, hint)
	}
}

// send appends a user message, sends the history as token and, when the
// request is accepted, appends the response's output items. It returns the
// status and the proxy's hint header.
func (c *responsesClient) send(token, text string) (int, string) {
	c.t.Helper()
	msg, _ := json.Marshal(map[string]any{"role": "user", "content": text})
	c.history = append(c.history, msg)
	body, _ := json.Marshal(map[string]any{"model": "gpt-5.4", "input": c.history, "stream": true, "store": false,
		"include": []string{"reasoning.encrypted_content"}, "prompt_cache_key": c.session})
	c.sent = compress(c.t, body, c.coding)
	req, _ := http.NewRequest(http.MethodPost, c.base+"/v1/responses", bytes.NewReader(c.sent))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if c.coding != "" {
		req.Header.Set("Content-Encoding", c.coding)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type string          `json:"type"`
			Item json.RawMessage `json:"item"`
		}
		if json.Unmarshal([]byte(data), &ev) == nil && ev.Type == "response.output_item.done" {
			c.history = append(c.history, ev.Item)
		}
	}
	return resp.StatusCode, resp.Header.Get(proxy.HintHeader)
}

// TestStatusPageInChromium drives the status page in real headless
// Chromium: it lists the run's sessions; switching a session off there
// makes the next request keep (and the supplier reject) another account's
// reasoning, with the hint; switching it on again omits it; each row says
// whether its policy is the session's own or the new-session default; the
// page reads in Simplified Chinese when asked; and a page of
// another origin that POSTs without the secret is refused and changes
// nothing.
func TestStatusPageInChromium(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "")
	one := &responsesClient{t: t, base: px.URL, session: "page-session-one"}
	two := &responsesClient{t: t, base: px.URL, session: "page-session-two"}
	for _, c := range []*responsesClient{one, two} {
		c.accept(tokenA, "hello")
	}
	one.accept(tokenB, "as B")

	b := startBrowser(t)
	tab := b.open(px.Page)
	b.waitFor(tab, `document.body.dataset.loaded === "1"`)
	var rows [][]string
	b.eval(tab, `[...document.querySelectorAll("tr[data-session]")].map(r => [r.dataset.session, r.dataset.policy, r.querySelector(".source").textContent])`, &rows)
	if len(rows) != 2 || rows[0][0] != "page-session-one" || rows[1][0] != "page-session-two" || rows[0][1] != "on" ||
		rows[0][2] != "(from the new-session default) " {
		t.Fatalf("the page lists %v", rows)
	}

	b.eval(tab, `document.querySelector('button[data-session="page-session-one"][data-policy="off"]').click()`, nil)
	b.waitFor(tab, `document.querySelector('tr[data-session="page-session-one"]').dataset.policy === "off"`)
	source := `document.querySelector('tr[data-session="page-session-one"] .source')`
	var src string
	b.eval(tab, source+`.dataset.source + ": " + `+source+`.textContent`, &src)
	if src != "session: (set for this session) " {
		t.Fatalf("a session switched off on the page shows its source as %q", src)
	}
	st, hint := one.send(tokenB, "B, policy off")
	if st != 400 || !strings.Contains(hint, "policy") || !strings.Contains(hint, "page-session-one on") {
		t.Fatalf("policy off: %d, hint %q", st, hint)
	}
	one.history = one.history[:len(one.history)-1] // the client drops the failed prompt

	b.eval(tab, `document.querySelector('button[data-session="page-session-one"][data-policy="on"]').click()`, nil)
	b.waitFor(tab, `document.querySelector('tr[data-session="page-session-one"]').dataset.policy === "on"`)
	if st, hint = one.send(tokenB, "B, policy on"); st != 200 || hint != "" {
		t.Fatalf("policy on again: %d %q", st, hint)
	}
	b.waitFor(tab, `document.querySelector('tr[data-session="page-session-one"] td.rejections').innerText.includes("organization-mismatch")`)

	zh := b.open(px.URL + "/?lang=zh-CN#k=" + px.Secret)
	b.waitFor(zh, `document.body.dataset.loaded === "1" && document.documentElement.lang === "zh-CN"`)
	var title string
	b.eval(zh, `document.getElementById("title").textContent + " " + document.querySelector("th").textContent`, &title)
	if !strings.Contains(title, "会话") {
		t.Fatalf("the Chinese page reads %q", title)
	}
	var sources []string
	b.eval(zh, `[...document.querySelectorAll("tr[data-session] .source")].map(e => e.textContent)`, &sources)
	if len(sources) != 2 || sources[0] != "（此会话单独设置） " || sources[1] != "（来自新会话默认设置） " {
		t.Fatalf("the Chinese page shows the policies' sources as %q", sources)
	}

	// Back to the default: the row says where its policy comes from again.
	b.eval(tab, `document.querySelector('button[data-session="page-session-one"][data-policy="default"]').click()`, nil)
	b.waitFor(tab, source+`.dataset.source === "default"`)

	// Another origin: a page on another loopback port.
	other := b.open(serveElsewhere(t, "127.0.0.1"))
	b.waitFor(other, `document.title === "elsewhere"`)
	before := pageState(t, px).Refused
	var outcome []string
	b.eval(other, `(async () => {
		const url = `+jsString(px.URL+"/continuity/session")+`;
		const body = JSON.stringify({session: "page-session-two", policy: "off"});
		const out = [];
		try { await fetch(url, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body}); out.push("simple sent"); }
		catch (e) { out.push("simple failed"); }
		try { const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body}); out.push("cors " + r.status); }
		catch (e) { out.push("cors blocked"); }
		return out;
	})()`, &outcome)
	if len(outcome) != 2 || outcome[1] != "cors blocked" {
		t.Fatalf("cross-origin fetches: %v", outcome)
	}
	after := pageState(t, px)
	if after.Refused <= before {
		t.Fatalf("the cross-origin POST was not refused (refused %d → %d)", before, after.Refused)
	}
	for _, s := range after.Sessions {
		if s.ID == "page-session-two" && s.Policy != "on" {
			t.Fatal("a cross-origin POST changed the policy")
		}
	}
}

// serveElsewhere serves a blank page titled "elsewhere" on a random port
// of host until the test ends, and returns its address.
func serveElsewhere(t *testing.T, host string) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>elsewhere</title>"))
	})}
	go srv.Serve(ln) // ends with Close at cleanup
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

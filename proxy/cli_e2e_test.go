package proxy_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/internal/testbin"
)

// continuity runs the real binary and returns its exit code and output.
func continuity(t *testing.T, args ...string) (int, string) { return testbin.Run(t, nil, args...) }

// TestPolicyCommand: `continuity policy` writes the store the proxy reads,
// so a session switched off on the command line is passed unfiltered by a
// running proxy, and the default applies to sessions seen later.
func TestPolicyCommand(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	dir := t.TempDir()
	px := startProxy(t, sup.URL(), dir)
	c := &responsesClient{t: t, base: px.URL, session: "cli-session"}
	c.accept(tokenA, "hello")
	// What the proxy applies: on, from the default its first-seen time selects.
	if code, out := continuity(t, "policy", "--data-dir", dir, "cli-session"); code != 0 || out != "cli-session: on (default)\n" {
		t.Fatalf("%d %s", code, out)
	}
	if code, out := continuity(t, "policy", "--data-dir", dir, "cli-session", "off"); code != 0 || out != "cli-session: off (session)\n" {
		t.Fatalf("%d %s", code, out)
	}
	if code, out := continuity(t, "policy", "--data-dir", dir, "cli-session"); code != 0 || out != "cli-session: off (session)\n" {
		t.Fatalf("%d %s", code, out)
	}
	if st, hint := c.send(tokenB, "as B"); st != 400 || !strings.Contains(hint, "continuity policy --data-dir "+dir+" cli-session on") {
		t.Fatalf("off: %d %q", st, hint)
	}
	c.history = c.history[:len(c.history)-1]
	if code, out := continuity(t, "policy", "--data-dir", dir, "cli-session", "on"); code != 0 {
		t.Fatalf("%d %s", code, out)
	}
	c.accept(tokenB, "as B again")
	if code, out := continuity(t, "policy", "--data-dir", dir, "--default", "off"); code != 0 || out != "new sessions: off (shared: the plugin, pi and every proxy on this data directory)\n" {
		t.Fatalf("%d %s", code, out)
	}
	late := &responsesClient{t: t, base: px.URL, session: "late-session"}
	late.send(tokenA, "hello")
	if st, _ := late.send(tokenB, "as B"); st != 400 {
		t.Fatalf("a session first seen after --default off was filtered: %d", st)
	}
	for _, bad := range [][]string{{"policy", "--data-dir", dir, "s", "maybe"}, {"policy", "--data-dir", dir, "--default", "perhaps"},
		{"policy", "--data-dir", dir, "never-seen", "on"}} {
		if code, out := continuity(t, bad...); code != 2 || !strings.Contains(out, "continuity policy:") {
			t.Errorf("%v: %d %s", bad, code, out)
		}
	}
	if rows := policyRows(t, dir); rows["cli-session"] != [3]string{"on", "session", "Go-http-client/1.1"} || rows["late-session"] != [3]string{"off", "default", "Go-http-client/1.1"} {
		t.Fatalf("continuity policy lists %v", rows)
	}
	samePolicies(t, px)
}

// TestProxyListenFlags: a non-loopback address needs --allow-remote, and
// then the proxy warns; the upstream must be a URL.
func TestProxyListenFlags(t *testing.T) {
	code, out := continuity(t, "proxy", "--listen", "0.0.0.0:0", "--upstream", "http://127.0.0.1:9", "--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(out, "--allow-remote") {
		t.Fatalf("%d %s", code, out)
	}
	if code, out := continuity(t, "proxy", "--upstream", "ftp://x"); code != 2 || !strings.Contains(out, "--upstream") {
		t.Fatalf("%d %s", code, out)
	}
	px := startProxy(t, "http://127.0.0.1:9", "", "--listen", "0.0.0.0:0", "--allow-remote")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(px.Log(), "WARNING: listening on") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(px.Log(), "beyond loopback") {
		t.Fatalf("no warning for a non-loopback listener: %s", px.Log())
	}
}

// TestUpstreamFailuresThroughBinary: through the real binary, an upstream
// that sends no headers within --upstream-header-timeout is answered 504
// UPSTREAM_TIMEOUT (a gateway timeout), one that cannot be reached 502
// UPSTREAM_UNREACHABLE, both in the proxy's envelope and logged once with
// their code and status, never with the credential.
func TestUpstreamFailuresThroughBinary(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(release) })
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // its address now refuses connections
	for _, c := range []struct {
		upstream, code string
		status         int
	}{
		{hung.URL, "UPSTREAM_TIMEOUT", http.StatusGatewayTimeout},
		{closed.URL, "UPSTREAM_UNREACHABLE", http.StatusBadGateway},
	} {
		px := startProxy(t, c.upstream, "", "--upstream-header-timeout", "300ms")
		req, _ := http.NewRequest(http.MethodPost, px.URL+"/v1/responses", strings.NewReader(`{"prompt_cache_key":"s","input":[]}`))
		req.Header.Set("Authorization", "Bearer sk-timeout-secret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Error struct{ Type, Code, Message string }
		}
		err = json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		if err != nil || resp.StatusCode != c.status || env.Error.Code != c.code || env.Error.Type != "continuity_proxy_error" ||
			!strings.HasPrefix(env.Error.Message, "continuity proxy: the upstream did not answer: ") {
			t.Fatalf("%s: %d %+v (%v)", c.code, resp.StatusCode, env, err)
		}
		px.Stop()
		log := px.Log()
		if strings.Count(log, "upstream failed") != 1 || !strings.Contains(log, `"code":"`+c.code+`","status":`+strconv.Itoa(c.status)) ||
			strings.Contains(log, "sk-timeout-secret") {
			t.Fatalf("%s: the log says\n%s", c.code, log)
		}
	}
}

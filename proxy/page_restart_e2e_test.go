package proxy_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// TestStatusPageAfterRestart drives the page in headless Chromium after a
// proxy restart on the same data directory and port: the old address
// (its key kept in the data directory, readable by its owner only, and
// printed by `continuity page`) still works, the session of the earlier
// run is listed, and switching it off and on there changes what its next
// request omits.
func TestStatusPageAfterRestart(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	listen := "127.0.0.1:" + freePort(t)
	px := startProxy(t, sup.URL(), "", "--listen", listen)
	one := &responsesClient{t: t, base: px.URL, session: "before-restart"}
	one.accept(tokenA, "hello")
	one.accept(tokenB, "as B")
	old := px.Page
	px.Stop()

	fi, err := os.Stat(filepath.Join(px.DataDir, "page-secret"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the page secret's file: %v %v", fi, err)
	}
	again := startProxy(t, sup.URL(), px.DataDir, "--listen", listen)
	if again.Page != old {
		t.Fatalf("the page's address changed across the restart: %s, then %s", old, again.Page)
	}
	printed, err := exec.Command(testbin.Path(t), "page", "--data-dir", px.DataDir).Output()
	if err != nil || strings.TrimSpace(string(printed)) != old {
		t.Fatalf("continuity page printed %q (%v), the proxy %q", printed, err, old)
	}

	b := startBrowser(t)
	tab := b.open(old)
	b.waitFor(tab, `document.body.dataset.loaded === "1"`)
	row := `document.querySelector('tr[data-session="before-restart"]')`
	var earlier string
	b.eval(tab, row+`.querySelector("td.turns").textContent`, &earlier)
	if !strings.Contains(earlier, "before the proxy last started") {
		t.Fatalf("the earlier session's turns read %q", earlier)
	}
	var offered []string
	b.eval(tab, `[...`+row+`.querySelectorAll("button")].map(b => b.dataset.policy)`, &offered)
	if len(offered) != 1 || offered[0] != "off" {
		t.Fatalf("a session that is on is offered %v", offered)
	}

	// Off: the next request as A keeps B's reasoning, which the supplier rejects.
	b.eval(tab, row+`.querySelector('button[data-policy="off"]').click()`, nil)
	b.waitFor(tab, row+`.dataset.policy === "off"`)
	one.base = again.URL
	if st, hint := one.send(tokenA, "A, policy off"); st != 400 || !strings.Contains(hint, "before-restart on") {
		t.Fatalf("policy off after the restart: %d, hint %q", st, hint)
	}
	one.history = one.history[:len(one.history)-1]
	// On: the same request omits it and is accepted.
	b.eval(tab, row+`.querySelector('button[data-policy="on"]').click()`, nil)
	b.waitFor(tab, row+`.dataset.policy === "on"`)
	n := len(sup.Requests())
	one.accept(tokenA, "A, policy on")
	if got := since(sup, n); len(got) != 1 || len(reasoningIDs(t, got[0].Body)) != 1 {
		t.Fatalf("policy on after the restart: the supplier got %d requests", len(got))
	}
	b.waitFor(tab, row+`.querySelector("td.turns table") !== null && `+row+`.querySelector("td.rejections table") !== null`)
}

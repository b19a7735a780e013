package proxy_test

import (
	"net"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestStatusPageBeyondLoopback runs the proxy with --allow-remote on the
// wildcard address and drives its page in real headless Chromium opened at
// the address printed for other machines, as a person on the network
// would: the page loads and a session is switched off there. The same page
// reached under a DNS name that resolves to the machine (the rebinding
// attack; Chromium's --host-resolver-rules plays the attacker's DNS) is
// refused though it holds the secret, and a page of another origin on the
// same address cannot change anything.
//
// The printed address is one of the machine's non-loopback addresses. A CI
// machine may have none; then the proxy prints none and the page is opened
// at 127.0.0.2, an address the wildcard listener answers on that is
// neither the printed one nor the one the helpers dial — the case that
// failed before the guard judged the Host by the connection's address.
func TestStatusPageBeyondLoopback(t *testing.T) {
	t.Parallel()
	sup := startSupplier(t)
	px := startProxy(t, sup.URL(), "", "--listen", "0.0.0.0:0", "--allow-remote")
	u, err := url.Parse(px.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	if !strings.HasPrefix(px.Page, "http://127.0.0.1:"+port+"/#k=") {
		t.Fatalf("the status page for this machine is printed as %s, want the loopback address", px.Page)
	}
	page, addr := "http://127.0.0.2:"+port+"/#k="+px.Secret, "127.0.0.2"
	if own := machineAddress(); own != "" {
		page, addr = "http://"+net.JoinHostPort(own, port)+"/#k="+px.Secret, own
		if !slices.Contains(px.Remote, page) {
			t.Fatalf("the proxy printed %q for other machines, want %s among them", px.Remote, page)
		}
	}
	c := &responsesClient{t: t, base: "http://127.0.0.1:" + port, session: "remote-session"}
	c.accept(tokenA, "hello")
	b := startBrowser(t, "--host-resolver-rules=MAP rebind.test "+addr)

	tab := b.open(page)
	b.waitFor(tab, `document.body.dataset.loaded === "1"`)
	b.eval(tab, `document.querySelector('button[data-session="remote-session"][data-policy="off"]').click()`, nil)
	b.waitFor(tab, `document.querySelector('tr[data-session="remote-session"]').dataset.policy === "off"`)
	if policyOf(t, px, "remote-session") != "off" {
		t.Fatal("the page showed the session off but the store did not change")
	}

	before := pageState(t, px).Refused
	rebound := b.open("http://rebind.test:" + port + "/#k=" + px.Secret)
	b.waitFor(rebound, `document.getElementById("error").textContent.includes("403")`)
	var status int
	b.eval(rebound, `fetch("/continuity/session", {method: "POST", headers: {"X-Continuity-Secret": `+jsString(px.Secret)+`,
		"Content-Type": "application/json"}, body: JSON.stringify({session: "remote-session", policy: "on"})}).then(r => r.status)`, &status)
	if status != 403 {
		t.Fatalf("a POST from the page under a DNS name answered %d", status)
	}

	other := b.open(serveElsewhere(t, addr))
	b.waitFor(other, `document.title === "elsewhere"`)
	var outcome string
	b.eval(other, `fetch(`+jsString("http://"+net.JoinHostPort(addr, port)+"/continuity/session")+`, {method: "POST",
		headers: {"Content-Type": "application/json"}, body: JSON.stringify({session: "remote-session", policy: "on"})})
		.then(r => "cors " + r.status, () => "cors blocked")`, &outcome)
	if outcome != "cors blocked" {
		t.Fatalf("a cross-origin POST: %s", outcome)
	}
	if after := pageState(t, px).Refused; after < before+2 {
		t.Fatalf("the rebound page's requests were not all refused (refused %d → %d)", before, after)
	}
	if policyOf(t, px, "remote-session") != "off" {
		t.Fatal("a page of another origin changed the policy")
	}
}

// machineAddress is the machine's first non-loopback IPv4 address, ""
// when it has none.
func machineAddress() string {
	addrs, _ := net.InterfaceAddrs() // none listed: none to use
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}

// policyOf is a session's policy as the proxy's API reports it.
func policyOf(t *testing.T, px *running, session string) string {
	t.Helper()
	for _, s := range pageState(t, px).Sessions {
		if s.ID == session {
			return s.Policy
		}
	}
	t.Fatalf("the proxy does not list %s", session)
	return ""
}

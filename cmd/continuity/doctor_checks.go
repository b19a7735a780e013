package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/continuity-dev/continuity/clientconfig"
	"github.com/continuity-dev/continuity/instance"
	"github.com/continuity-dev/continuity/server"
)

// checkProxy: the registered proxy runs and answers.
func (d *doctor) checkProxy(dir string, usable bool) (instance.Record, bool) {
	start := "continuity proxy --data-dir " + shellArg(dir) + " --upstream URL (or let continuity run start one)"
	if last, err := instance.Last(dir); err == nil && len(last.Upstreams) > 0 {
		start = "continuity proxy --data-dir " + shellArg(dir) + " --upstream " + urlArg(redactAll(last.Upstreams[:1])) + " (or let continuity run start one)"
	}
	if !usable {
		d.problem(start, "no proxy is running for %s", dir)
		last, _ := instance.Last(dir)
		return last, false
	}
	rec, running, err := instance.Find(dir)
	if err != nil {
		d.problem(start, "the proxy of %s: %v", dir, err)
		return rec, false
	}
	if !running {
		d.problem(start, "no proxy is running for %s", dir)
		last, _ := instance.Last(dir)
		return last, false
	}
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get(rec.URL + "/")
	if err != nil {
		d.problem(fmt.Sprintf("stop it (kill %d) and start it again: %s", rec.PID, start), "the proxy of %s (pid %d) does not answer at %s: %v", dir, rec.PID, rec.URL, err)
		return rec, true
	}
	resp.Body.Close()
	how := "started by hand"
	if rec.WhileRuns {
		how = "started by continuity run; stops after the last run"
	}
	if rec.Version != server.Version {
		d.problem(fmt.Sprintf("stop it (kill %d) and start it again with this binary", rec.PID),
			"the proxy at %s (pid %d) is continuity %s; this is %s", rec.URL, rec.PID, rec.Version, server.Version)
		return rec, true
	}
	d.ok("proxy running at %s (pid %d, version %s, %s)", rec.URL, rec.PID, rec.Version, how)
	return rec, true
}

// checkUpstreams: each upstream answers a request that carries no
// credential; any HTTP answer, even 401, means it is reachable.
func (d *doctor) checkUpstreams(dir string, rec instance.Record) {
	if len(rec.Upstreams) == 0 {
		d.note("no upstream recorded yet for %s", dir)
		return
	}
	client := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, u := range rec.Upstreams {
		raw := u
		if name, rest, ok := strings.Cut(u, "="); ok && !strings.Contains(name, ":") {
			raw = rest
		}
		p, err := url.Parse(raw)
		if err != nil || p.Host == "" {
			d.problem("start the proxy with --upstream https://HOST", "upstream %s is not a URL", redactAll([]string{u}))
			continue
		}
		p.User = nil
		resp, err := client.Get(p.String())
		if err != nil {
			var dns *net.DNSError
			fix := "check the network, or the --upstream URL"
			if errors.As(err, &dns) {
				fix = "check the host name in --upstream"
			}
			d.problem(fix, "upstream %s does not answer: %v", p.Redacted(), errors.Unwrap(err))
			continue
		}
		resp.Body.Close()
		d.ok("upstream %s answers (HTTP %d to a request without credentials)", p.Redacted(), resp.StatusCode)
	}
}

// checkClients: each client's configuration points at the proxy, where
// continuity configure set it up or it names a loopback proxy; a client
// never configured for it is only noted.
func (d *doctor) checkClients(dir string, rec instance.Record, running bool) {
	want := "http://" + defaultListen
	if rec.URL != "" {
		want = rec.URL
	}
	s := clientconfig.Settings{ProxyURL: want}
	env := clientconfig.OSEnv()
	for _, cl := range clientconfig.Clients {
		path := cl.Path(env)
		target, err := cl.Target(path, s)
		configured := clientconfig.Configured(path)
		fix := "continuity configure --proxy " + want + " " + cl.Name
		switch {
		case errors.Is(err, fs.ErrNotExist):
			d.note("%s: no %s; to use it through the proxy: continuity configure %s", cl.Name, path, cl.Name)
		case errors.Is(err, clientconfig.ErrMalformed):
			d.problem("correct the file, or restore it: continuity configure --undo "+cl.Name, "%s: %v", cl.Name, err)
		case err != nil && !configured:
			d.note("%s: %s does not use the proxy (%v); to use it: continuity configure %s", cl.Name, path, err, cl.Name)
		case err != nil:
			d.problem(fix, "%s: %s no longer points at the proxy: %v", cl.Name, path, err)
		case target == s.BaseURL():
			d.ok("%s: %s points at the proxy (%s)", cl.Name, path, target)
		case configured || loopbackURL(target):
			d.problem(fix, "%s: %s points at %s, not at the proxy's %s", cl.Name, path, target, s.BaseURL())
		default:
			d.note("%s: %s sends requests to %s directly; to use the proxy: continuity configure %s", cl.Name, path, target, cl.Name)
		}
	}
}

func loopbackURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && isLoopbackHost(u.Hostname())
}

// urlArg quotes a URL for a command line when the shell would misread it.
func urlArg(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:/._-~%@+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/continuity-dev/continuity/clientconfig"
	"github.com/continuity-dev/continuity/instance"
	"github.com/continuity-dev/continuity/server"
	"github.com/continuity-dev/continuity/sqlstore"
)

// doctor collects the checks' lines; every problem carries its fix.
type doctor struct{ problems int }

func (d *doctor) ok(format string, a ...any) { fmt.Printf("ok       "+format+"\n", a...) }
func (d *doctor) note(format string, a ...any) {
	fmt.Printf("-        "+format+"\n", a...)
}
func (d *doctor) problem(fix, format string, a ...any) {
	d.problems++
	fmt.Printf("PROBLEM  "+format+"\n         fix: %s\n", append(a, fix)...)
}

// doctorCmd runs `continuity doctor`: what stands between this machine
// and a client working through the proxy, each problem with the command
// that fixes it; the exit status is 1 when there is any.
func doctorCmd(args []string) int {
	c := newCommand("doctor")
	dataDir := c.dataDir("data directory (default: the user state directory's continuity/)")
	c.Usage = func() {
		fmt.Fprint(c.Output(), `usage: continuity doctor [--data-dir DIR]

Checks the data directory and its database, the proxy registered for it,
the upstream it forwards to, and whether Codex, opencode and pi are
pointed at it. Exits 1 when it finds a problem.

flags:
`)
		c.PrintDefaults()
	}
	if code, ok := c.parse(args, 0); !ok {
		return code
	}
	dir := dataDir()
	d := &doctor{}
	d.ok("%s, %s %s/%s", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	usable := d.checkDataDir(dir)
	if usable {
		d.checkDatabase(dir)
	}
	rec, running := d.checkProxy(dir, usable)
	d.checkUpstreams(dir, rec)
	d.checkClients(dir, rec, running)
	if d.problems > 0 {
		fmt.Printf("%d problem(s) found\n", d.problems)
		return 1
	}
	fmt.Println("no problems found")
	return 0
}

// checkDataDir: the directory exists (or can be made) and takes a write.
func (d *doctor) checkDataDir(dir string) bool {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.note("data directory %s does not exist yet; the first continuity proxy or run creates it", dir)
		return false
	case err != nil:
		d.problem("check the path, or use another with --data-dir", "data directory %s: %v", dir, err)
		return false
	case !info.IsDir():
		d.problem("move the file aside (mv "+shellArg(dir)+" "+shellArg(dir)+".old) or use another --data-dir",
			"data directory %s is not a directory", dir)
		return false
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		d.problem("chmod u+rwx "+shellArg(dir), "data directory %s is not writable: %v", dir, err)
		return false
	}
	f.Close()
	os.Remove(f.Name())
	d.ok("data directory %s is writable", dir)
	return true
}

// checkDatabase runs SQLite's integrity_check on continuity.db, read-only.
func (d *doctor) checkDatabase(dir string) {
	path := filepath.Join(dir, sqlstore.FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		d.note("database %s does not exist yet; the proxy creates it", path)
		return
	}
	fix := "stop the proxy, then move the database aside: mv " + shellArg(path) + " " + shellArg(path+".corrupt") +
		" (a new one starts empty: reasoning whose issuer it recorded is then omitted on the first switched request)"
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		d.problem(fix, "database %s: %v", path, err)
		return
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		d.problem(fix, "database %s is not sound: %v", path, err)
		return
	}
	defer rows.Close()
	var found []string
	for rows.Next() && len(found) < 5 {
		var line string
		if err := rows.Scan(&line); err != nil {
			break
		}
		found = append(found, line)
	}
	if err := rows.Err(); err != nil {
		d.problem(fix, "database %s is not sound: %v", path, err)
		return
	}
	if len(found) != 1 || found[0] != "ok" {
		d.problem(fix, "database %s is not sound: %s", path, strings.Join(found, "; "))
		return
	}
	d.ok("database %s passes integrity_check", path)
}

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

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/proxy"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/sqlstore"
)

// proxyCmd runs `continuity proxy`: the local Responses and Gemini proxy
// for clients that cannot load the plugin. It prints the listening address and the
// status page's address (with the page secret kept in the data directory,
// in the fragment) on stdout, logs on stderr (--log-format), and runs until
// SIGINT or SIGTERM.
func proxyCmd(args []string) int {
	c := newCommand("proxy")
	listen := c.String("listen", defaultListen, "address to listen on (loopback unless --allow-remote)")
	var ups upstreamFlags
	c.Var(&ups, "upstream", "the supplier's base URL, e.g. https://api.openai.com (required); NAME=URL serves it under /NAME/ instead, repeatable")
	dataDir := c.dataDir("data directory shared with the plugin (default: the user state directory's continuity/)")
	def := c.String("default", "", "set the new-session default before serving: on or off")
	rule := c.String("rule", string(proxy.RuleProvenance), "omission rule: provenance or turn")
	allowRemote := c.Bool("allow-remote", false, "allow listening on a non-loopback address")
	whileRuns := c.Bool("while-runs", false, "stop once no `continuity run` uses the data directory (how continuity run starts it)")
	headerTimeout := c.Duration("upstream-header-timeout", 10*time.Minute, "how long to wait for the upstream's response headers")
	level := c.logLevel()
	limits := limitFlags(c)
	logger := c.logFormat()
	if code, ok := c.parse(args, 0); !ok {
		return code
	}
	if ups.root == nil && len(ups.named) == 0 {
		return c.fail(2, "--upstream is required: the supplier's base URL, e.g. --upstream https://api.openai.com")
	}
	if *def != "" && *def != "on" && *def != "off" {
		return c.fail(2, "--default must be on or off")
	}
	lvl, err := level()
	if err != nil {
		return c.fail(2, "%v", err)
	}
	lim, err := limits()
	if err != nil {
		return c.fail(2, "%v", err)
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return c.fail(2, "--listen %q: %v", *listen, err)
	}
	loopback := isLoopbackHost(host)
	if !loopback && !*allowRemote {
		return c.fail(2, "--listen %s is not a loopback address; anyone who can reach it could use your credentials' session through it. Pass --allow-remote to do so anyway", *listen)
	}
	log, err := logger(lvl)
	if err != nil {
		return c.fail(2, "%v", err)
	}
	defer log.Sync()

	dir := dataDir()
	policy, err := openPolicy(dir)
	if err != nil {
		return c.fail(2, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := policy.Activate(ctx); err != nil {
		return c.fail(2, "%v", err)
	}
	if *def != "" {
		if err := proxy.SetDefault(ctx, policy, *def == "on"); err != nil {
			return c.fail(2, "setting the default: %v", err)
		}
	}

	db, err := sqlstore.Open(dir)
	if err != nil {
		return c.fail(2, "%v", err)
	}
	defer db.Close()

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return c.fail(2, "%v", err)
	}
	secret, err := proxy.PageSecret(dir)
	if err != nil {
		return c.fail(2, "%v", errors.Join(err, ln.Close()))
	}
	addr := ln.Addr().String()
	hosts := pageHosts(ln.Addr().(*net.TCPAddr))
	page := "http://" + hosts[0] + "/"
	if err := proxy.SavePageAddress(dir, page); err != nil {
		return c.fail(2, "%v", errors.Join(err, ln.Close()))
	}
	transport := proxy.UpstreamTransport()
	transport.ResponseHeaderTimeout = *headerTimeout
	cfg := proxy.Config{Upstream: ups.root, Upstreams: ups.named, Policy: policy, DB: db, Rule: proxy.Rule(*rule), Secret: secret, Transport: transport,
		Log: log, PolicyCommand: "continuity policy --data-dir " + shellArg(dir), PageURL: page,
		PageCommand: "continuity page --data-dir " + shellArg(dir), Limits: lim}
	px, err := proxy.New(cfg)
	if err != nil {
		return c.fail(2, "%v", errors.Join(err, ln.Close()))
	}
	release, err := registerProxy(dir, addr, ups.args, *whileRuns, ctx.Done(), stop)
	if err != nil {
		return c.fail(2, "%v", errors.Join(err, ln.Close()))
	}
	defer release()
	limitMemory(cfg.Limits.BodyBudget)
	srv := px.Server(ctx)
	if !loopback {
		fmt.Fprintf(os.Stderr, "continuity proxy: WARNING: listening on %s, beyond loopback: anyone who can reach it can send requests through it\n", addr)
	}
	// The upstream is named without a password its URL may carry.
	fmt.Printf("continuity proxy listening on http://%s → %s (rule %s, data %s)\n", addr, ups.describe(), *rule, dir)
	for _, h := range hosts[1:] {
		fmt.Printf("status page from other machines: http://%s/#k=%s\n", h, secret)
	}
	fmt.Printf("status page: %s#k=%s\n", page, secret)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		log.Error("proxy stopped", zap.Error(err))
		return 1
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		log.Warn("proxy shutdown: connections still open at the deadline are closed", zap.Error(err))
		if cerr := srv.Close(); cerr != nil {
			log.Warn("proxy close", zap.Error(cerr))
		}
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("proxy stopped", zap.Error(err))
		return 1
	}
	return 0
}

// openPolicy opens the embedded settings store the plugin uses in dir.
func openPolicy(dir string) (*settings.Policy, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	store, err := settings.OpenFileStore(filepath.Join(dir, "settings"))
	if err != nil {
		return nil, err
	}
	return settings.NewPolicy(store), nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// shellArg quotes a path for the hint's command line when it needs it.
func shellArg(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '.' || c == '-' || c == '_') {
			return "'" + s + "'"
		}
	}
	return s
}

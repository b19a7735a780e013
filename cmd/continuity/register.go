package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/continuity-dev/continuity/instance"
	"github.com/continuity-dev/continuity/server"
)

// defaultListen is the proxy's address unless --listen says otherwise; the
// address `continuity configure` gives clients by default.
const defaultListen = "127.0.0.1:8788"

// registerProxy makes a starting proxy the data directory's registered one,
// the proxy `continuity run` reuses and `continuity doctor` checks, and
// publishes its address. When another live proxy is registered this one
// serves unregistered, as a second proxy on one data directory may — except
// one started by run (whileRuns), which stops instead so that run uses the
// registered one. With whileRuns, stop is called once no run uses the data
// directory; the watcher ends with done.
func registerProxy(dir, addr string, upstreams []string, whileRuns bool, done <-chan struct{}, stop func()) (release func(), err error) {
	reg, other, err := instance.Register(dir)
	if err == instance.ErrRegistered {
		if whileRuns {
			return nil, fmt.Errorf("%w: pid %d at %s", err, other.PID, other.URL)
		}
		fmt.Fprintf(os.Stderr, "continuity proxy: note: the proxy at %s (pid %d) is this data directory's registered one; continuity run and doctor use that one, not this\n", other.URL, other.PID)
		return func() {}, nil
	} else if err != nil {
		return nil, fmt.Errorf("registering the proxy in %s: %w", dir, err)
	}
	rec := instance.Record{PID: os.Getpid(), URL: "http://" + addr, Upstreams: upstreams, Version: server.Version,
		Started: time.Now().UTC(), WhileRuns: whileRuns}
	if err := reg.Publish(rec); err != nil {
		reg.Close()
		return nil, fmt.Errorf("recording the proxy in %s: %w", filepath.Join(dir, "proxy.json"), err)
	}
	if whileRuns {
		idle, err := instance.NoRuns(dir, 500*time.Millisecond, done)
		if err != nil {
			reg.Close()
			return nil, err
		}
		go func() { // owned by done: ends with the proxy's context
			select {
			case <-idle:
				fmt.Fprintln(os.Stderr, "continuity proxy: the last continuity run has ended; stopping")
				stop()
			case <-done:
			}
		}()
	}
	return func() { reg.Close() }, nil
}

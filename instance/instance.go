// Package instance keeps track of the proxy that serves a data directory,
// so `continuity run` reuses a running one instead of starting a second and
// `continuity doctor` can find it.
//
// Three lock files in the data directory, never removed (removing a lock
// file races with a process about to lock it):
//   - proxy.lock is held, exclusively, by the registered proxy for as long
//     as it runs; the operating system releases it when the process ends,
//     so a crashed proxy never looks alive. Beside it, proxy.json records
//     the registered proxy's address and upstreams; it stays after the
//     proxy stops, as the upstreams a later run reuses.
//   - runs.lock is held, shared, by each `continuity run` while its client
//     runs; a proxy started by run stops once it can lock it exclusively,
//     that is when the last run has ended.
//   - start.lock serialises runs that look for a proxy and start one.
package instance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Record is proxy.json: the registered proxy of a data directory.
type Record struct {
	PID int    `json:"pid"`
	URL string `json:"url"` // http://127.0.0.1:8788
	// Upstreams are the proxy's --upstream arguments.
	Upstreams []string  `json:"upstreams"`
	Version   string    `json:"version"`
	Started   time.Time `json:"started"`
	// WhileRuns: started by `continuity run`, stops after the last run.
	WhileRuns bool `json:"whileRuns,omitempty"`
}

// ErrRegistered is returned when another live proxy is registered for the
// data directory.
var ErrRegistered = errors.New("a proxy is already registered for this data directory")

const (
	proxyLock  = "proxy.lock"
	recordFile = "proxy.json"
	runsLock   = "runs.lock"
	startLock  = "start.lock"
)

// Registration is the lock a registered proxy holds; Close releases it.
type Registration struct {
	dir  string
	lock *lockFile
}

// Register makes the calling process the data directory's registered proxy,
// or returns ErrRegistered with the live one's record.
func Register(dir string) (*Registration, Record, error) {
	l, err := openLock(filepath.Join(dir, proxyLock))
	if err != nil {
		return nil, Record{}, err
	}
	// A Find may hold the lock for an instant to test it: try a few times.
	for attempt := 0; ; attempt++ {
		ok, err := l.tryLock(true)
		if err != nil {
			l.close()
			return nil, Record{}, err
		}
		if ok {
			return &Registration{dir: dir, lock: l}, Record{}, nil
		}
		if attempt == 10 {
			l.close()
			rec, _ := Last(dir)
			return nil, rec, ErrRegistered
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Publish writes the record, atomically, readable only by the user.
func (r *Registration) Publish(rec Record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(r.dir, recordFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(r.dir, recordFile))
}

// Close gives the registration up.
func (r *Registration) Close() error { return r.lock.close() }

// Last reads proxy.json whether or not its proxy still runs.
func Last(dir string) (Record, error) {
	var rec Record
	b, err := os.ReadFile(filepath.Join(dir, recordFile))
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("%s: %w", filepath.Join(dir, recordFile), err)
	}
	return rec, nil
}

// Find returns the registered proxy's record when one is running.
func Find(dir string) (Record, bool, error) {
	l, err := openLock(filepath.Join(dir, proxyLock))
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	} else if err != nil {
		return Record{}, false, err
	}
	defer l.close()
	free, err := l.tryLock(true)
	if err != nil || free {
		return Record{}, false, err
	}
	rec, err := Last(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, true, nil // registered, not yet published
	}
	return rec, true, err
}

// Run is a `continuity run` in progress: its shared hold of runs.lock.
type Run struct{ lock *lockFile }

// BeginRun marks a run in progress; it waits while a proxy started by run
// is stopping, so the run never finds a proxy on its way out.
func BeginRun(dir string) (*Run, error) {
	l, err := openLock(filepath.Join(dir, runsLock))
	if err != nil {
		return nil, err
	}
	if err := l.lock(false); err != nil {
		l.close()
		return nil, err
	}
	return &Run{lock: l}, nil
}

// End ends the run.
func (r *Run) End() error { return r.lock.close() }

// Starting holds start.lock until its release function is called.
func Starting(dir string) (release func(), err error) {
	l, err := openLock(filepath.Join(dir, startLock))
	if err != nil {
		return nil, err
	}
	if err := l.lock(true); err != nil {
		l.close()
		return nil, err
	}
	return func() { l.close() }, nil
}

// NoRuns returns a channel closed once no run is in progress. The watcher
// goroutine it starts belongs to the caller's done channel: it ends when
// done closes or when it reports; having reported, it keeps runs.lock, so
// a run beginning meanwhile waits until the process has exited.
func NoRuns(dir string, every time.Duration, done <-chan struct{}) (<-chan struct{}, error) {
	l, err := openLock(filepath.Join(dir, runsLock))
	if err != nil {
		return nil, err
	}
	idle := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				l.close()
				return
			case <-t.C:
				if ok, err := l.tryLock(true); err == nil && ok {
					close(idle)
					return // the lock is released when the process exits
				}
			}
		}
	}()
	return idle, nil
}

package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/remote"
)

// settingsToggle flips sessionID's row by read-modify-write through the
// Remote: get, then set the opposite under the revision read, again from
// get on CONFLICT. It returns the view the successful set answered, or
// err when the plugin is gone.
func settingsToggle(ctx context.Context, h *host.Host, sessionID string, conflicts *int) (remote.PolicyView, error) {
	for {
		res, err := h.RemoteInvoke(ctx, remote.HistoryPolicyNamespace, "get", map[string]any{"agentId": sessionID})
		if err != nil {
			return remote.PolicyView{}, err
		}
		var cur remote.PolicyView
		if err := settingsValue(res, &cur); err != nil {
			return remote.PolicyView{}, err
		}
		res, err = h.RemoteInvoke(ctx, remote.HistoryPolicyNamespace, "set",
			map[string]any{"agentId": sessionID, "revision": cur.Revision, "enabled": !cur.Enabled})
		if err != nil {
			return remote.PolicyView{}, err
		}
		if !res.OK && res.Error != nil && res.Error.Code == diag.Conflict {
			*conflicts++
			continue
		}
		var next remote.PolicyView
		if err := settingsValue(res, &next); err != nil {
			return remote.PolicyView{}, err
		}
		if next.Enabled == cur.Enabled {
			return remote.PolicyView{}, fmt.Errorf("set %s to %v answered %+v", sessionID, !cur.Enabled, next)
		}
		return next, nil
	}
}

// settingsValue decodes a successful Remote result's value.
func settingsValue(res host.RemoteResult, v any) error {
	if !res.OK {
		return fmt.Errorf("remote call failed: %s", res.Raw)
	}
	return json.Unmarshal(res.Value, v)
}

// TestSettingsTwoProcessesLoseNoUpdate: two plugin processes on one data
// directory toggle their own sessions' rows through the embedded store,
// hundreds of times each and interleaved, with read-modify-write under the
// namespace revision. Every acknowledged write is in the final document,
// and the revision counts exactly the writes made.
func TestSettingsTwoProcessesLoseNoUpdate(t *testing.T) {
	const writesEach, sessionsEach = 200, 4
	mode := settingsModes[1]
	dir := t.TempDir()
	ctx := ctxT(t)
	envs := []*settingsEnv{settingsStart(t, mode, dir), settingsStart(t, mode, dir)}
	// The processes start one after the other: starting them at once
	// trips an SQLite race in sqlstore (reported to the lead); concurrent
	// activation is covered by settings' TestConcurrentActivationWritesOneEpoch.
	for _, e := range envs {
		e.initReady()
	}
	if s := envs[0].stored(); s.Revision != 1 || len(s.History) != 1 {
		t.Fatalf("after two activations: revision %d, history %+v", s.Revision, s.History)
	}

	var wg sync.WaitGroup
	done := make([]int, len(envs))

	last := make([]map[string]bool, len(envs))
	conflicts := make([]int, len(envs))
	errs := make([]error, len(envs))
	for p, e := range envs {
		last[p] = map[string]bool{}
		for i := range sessionsEach {
			e.agent(fmt.Sprintf("p%d-s%d", p, i), nil)
		}
		wg.Go(func() {
			for n := range writesEach {
				id := fmt.Sprintf("p%d-s%d", p, n%sessionsEach)
				v, err := settingsToggle(ctx, e.h, id, &conflicts[p])
				if err != nil {
					errs[p] = err
					return
				}
				last[p][id] = v.Enabled
				done[p]++
			}
		})
	}
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Errorf("process %d after %d writes: %v", p, done[p], err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("conflicts retried: %v", conflicts)

	s := envs[0].stored()
	if want := int64(1 + len(envs)*writesEach); s.Revision != want {
		t.Fatalf("revision %d, want %d (activation plus every write once)", s.Revision, want)
	}
	if len(s.Rows) != len(envs)*sessionsEach {
		t.Fatalf("%d rows, want %d", len(s.Rows), len(envs)*sessionsEach)
	}
	for p := range envs {
		for id, enabled := range last[p] {
			if r, ok := s.row(id); !ok || r.On() != enabled {
				t.Errorf("%s: stored %+v, last write was %v", id, r, enabled)
			}
		}
		if n := len(envs[p].changed()); n != writesEach {
			t.Errorf("process %d announced %d changes, want %d", p, n, writesEach)
		}
	}
}

// TestSettingsSIGKILLMidWrite: a plugin toggling a row in a loop is killed
// with SIGKILL at random moments. Each time the embedded document still
// parses, holds every acknowledged write plus at most the one in flight,
// and the next process activates on it and reads the same state.
func TestSettingsSIGKILLMidWrite(t *testing.T) {
	const rounds = 6
	mode := settingsModes[1]
	dir := t.TempDir()
	ctx := ctxT(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	var acked remote.PolicyView // the last acknowledged write, over all rounds
	landed, torn := 0, 0        // kills after an unacknowledged write, kills leaving a temp file
	for round := range rounds {
		e := settingsStart(t, mode, dir)
		e.initReady()
		e.agent("s1", nil)
		if round > 0 {
			if v := e.get("s1"); v.Revision != e.stored().Revision {
				t.Fatalf("round %d: view at revision %d, document at %d", round, v.Revision, e.stored().Revision)
			}
		}
		var mu sync.Mutex
		acks := 0
		done := make(chan error, 1)
		go func() {
			var conflicts int
			for {
				v, err := settingsToggle(ctx, e.h, "s1", &conflicts)
				if err != nil {
					done <- err
					return
				}
				mu.Lock()
				acked, acks = v, acks+1
				mu.Unlock()
			}
		}()
		for want := 2 + rng.IntN(12); ; time.Sleep(time.Millisecond) {
			mu.Lock()
			n := acks
			mu.Unlock()
			if n >= want {
				break
			}
		}
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		if err := killHard(e.h.PID()); err != nil {
			t.Fatal(err)
		}
		<-done
		<-e.h.Exited()

		if tmp, _ := filepath.Glob(filepath.Join(dir, "settings", "*.tmp")); len(tmp) > 0 {
			torn++
		}
		s := e.stored() // parses strictly, or fails the test
		mu.Lock()
		a := acked
		mu.Unlock()
		r, ok := s.row("s1")
		switch {
		case !ok:
			t.Fatalf("round %d: the row is gone (revision %d)", round, s.Revision)
		case s.Revision == a.Revision && r.On() == a.Enabled:
		case s.Revision == a.Revision+1 && r.On() == !a.Enabled: // the write in flight landed
			landed++
		default:
			t.Fatalf("round %d: document at revision %d with s1 %v; last acknowledged revision %d with %v",
				round, s.Revision, r.On(), a.Revision, a.Enabled)
		}
	}
	t.Logf("%d of %d kills after an unacknowledged write landed, %d left a temp file", landed, rounds, torn)
	// The next process starts, reads and writes; a temp file a killed
	// writer left behind is cleared by that write.
	e := settingsStart(t, mode, dir)
	e.initReady()
	e.agent("s1", nil)
	before := e.get("s1")
	if v := e.set("s1", settingsBool(!before.Enabled)); v.Enabled == before.Enabled || v.Revision != before.Revision+1 {
		t.Fatalf("write after the kills: %+v from %+v", v, before)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "settings", "*.tmp")); len(tmp) != 0 {
		t.Fatalf("temp files left after a write: %v", tmp)
	}
	if _, err := os.Stat(e.docPath()); err != nil {
		t.Fatal(err)
	}
}

// Package settingstest holds an in-memory settings service with the host's
// compare-and-swap semantics, and switches that make it fail or lie the
// ways a real host can, for tests of code that writes settings.
package settingstest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
)

// Memory is a hostapi.Settings kept in memory. Like the DSH host it holds
// an integer revision per namespace, applies set/unset path operations only
// when expectedRevision is current, and otherwise fails with
// SETTINGS_CONFLICT carrying {expected, actual}. The zero value is ready.
type Memory struct {
	mu       sync.Mutex
	docs     map[string]hostapi.Namespace
	mutates  int
	readback bool

	// DescribeErr and MutateErr, when set, are returned by every call of
	// that method (an unreachable or failing host).
	DescribeErr error
	MutateErr   error
	// LoseReply, when set, is returned by every Mutate that succeeded:
	// the write lands but its answer is lost (a host that fails after
	// committing, or a connection that drops on the way back).
	LoseReply error
	// Readback, when set, replaces what the first Describe after each
	// successful Mutate returns (a host that lies or loses the write).
	Readback func(hostapi.Namespace) hostapi.Namespace
}

// Put stores value (raw JSON, any shape, so tests can plant malformed
// data) at revision rev.
func (m *Memory) Put(ns string, value string, rev int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.docs == nil {
		m.docs = map[string]hostapi.Namespace{}
	}
	m.docs[ns] = hostapi.Namespace{NS: ns, Value: json.RawMessage(value), Revision: rev}
}

// Get returns the stored bytes and revision of ns, untouched by Readback.
func (m *Memory) Get(ns string) (string, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.lookup(ns)
	return string(d.Value), d.Revision
}

// Mutates counts the successful Mutate calls.
func (m *Memory) Mutates() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mutates
}

func (m *Memory) lookup(ns string) hostapi.Namespace {
	d, ok := m.docs[ns]
	if !ok {
		return hostapi.Namespace{NS: ns, Value: json.RawMessage("{}")}
	}
	return d
}

// Describe implements hostapi.Settings.
func (m *Memory) Describe(ctx context.Context, ns string) (hostapi.Namespace, error) {
	if err := ctx.Err(); err != nil {
		return hostapi.Namespace{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.DescribeErr != nil {
		return hostapi.Namespace{}, m.DescribeErr
	}
	d := m.lookup(ns)
	d.Value = append(json.RawMessage(nil), d.Value...)
	if m.readback && m.Readback != nil {
		d = m.Readback(d)
	}
	m.readback = false
	return d, nil
}

// Mutate implements hostapi.Settings.
func (m *Memory) Mutate(ctx context.Context, ns string, ops []hostapi.Op, expectedRevision int64) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.MutateErr != nil {
		return 0, m.MutateErr
	}
	d := m.lookup(ns)
	if d.Revision != expectedRevision {
		return 0, settings.HostConflictError(ns, expectedRevision, d.Revision)
	}
	v, err := settings.ApplyOps(d.Value, ops)
	if err != nil {
		return 0, err
	}
	if m.docs == nil {
		m.docs = map[string]hostapi.Namespace{}
	}
	m.docs[ns] = hostapi.Namespace{NS: ns, Value: v, Revision: d.Revision + 1}
	m.mutates++
	m.readback = true
	if m.LoseReply != nil {
		return 0, m.LoseReply
	}
	return d.Revision + 1, nil
}

package proxy

import (
	"context"
	"sync"
)

// maxIssued bounds the issuance records held in memory; the oldest go
// first. At about 100 bytes a record this is some 13 MB at most. The ledger
// keeps more, and answers for what memory no longer holds.
const maxIssued = 1 << 17

// issuers records which account each reasoning and compaction item was
// issued to, by the fingerprint of its encrypted_content: in memory for
// this run, in front of the ledger that keeps them across restarts and
// shares them with other proxies on the same data directory.
type issuers struct {
	ledger *ledger

	mu    sync.Mutex
	by    map[[32]byte]Account
	order [][32]byte // insertion order, for eviction
	head  int        // the oldest live entry of order once it is full
}

func newIssuers(l *ledger) *issuers { return &issuers{ledger: l, by: map[[32]byte]Account{}} }

// record notes in memory that fp was issued to a; persist writes it to the
// ledger. A fingerprint already known keeps its first issuer: content
// cannot be issued twice.
func (p *issuers) record(fp [32]byte, a Account) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.remember(fp, a)
}

// remember is record with the lock held.
func (p *issuers) remember(fp [32]byte, a Account) {
	if _, ok := p.by[fp]; ok {
		return
	}
	if len(p.order) < maxIssued {
		p.order = append(p.order, fp)
	} else {
		delete(p.by, p.order[p.head])
		p.order[p.head] = fp
		p.head = (p.head + 1) % maxIssued
	}
	p.by[fp] = a
}

// persist writes the items of one response, issued to a, to the ledger.
func (p *issuers) persist(ctx context.Context, fps [][32]byte, a Account) error {
	return p.ledger.recordIssued(ctx, fps, a)
}

// issuer returns the account fp was issued to, ok false when neither memory
// nor the ledger knows it.
func (p *issuers) issuer(ctx context.Context, fp [32]byte) (Account, bool, error) {
	p.mu.Lock()
	a, ok := p.by[fp]
	p.mu.Unlock()
	if ok {
		return a, true, nil
	}
	a, ok, err := p.ledger.issuer(ctx, fp)
	if ok {
		p.mu.Lock()
		p.remember(fp, a)
		p.mu.Unlock()
	}
	return a, ok, err
}

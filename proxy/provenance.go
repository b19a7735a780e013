package proxy

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/continuity-dev/continuity/filter"
)

// maxIssued bounds the issuance records held in memory; the oldest go
// first. At about 100 bytes a record this is some 13 MB at most. The ledger
// keeps more, and answers for what memory no longer holds.
const maxIssued = 1 << 17

// issuers records which account each reasoning and compaction item was
// issued to, by the fingerprint of its encrypted_content: in memory for
// this run, in front of the ledger that keeps them across restarts and
// shares them with other proxies on the same data directory. Memory also
// keeps what the ledger did not know, so a history from before the proxy
// costs one ledger query per item per run, not per request: an item cannot
// appear in a request before it is issued, so one the ledger did not know
// when asked is unknown for good, unless its issuing response passes
// through this proxy (record) afterwards — which only a resent history
// racing its own answer could do.
type issuers struct {
	ledger *ledger

	mu    sync.Mutex
	by    map[[32]byte]issuance
	order [][32]byte // insertion order, for eviction
	head  int        // the oldest live entry of order once it is full
}

// issuance is what memory knows of one fingerprint.
type issuance struct {
	account Account
	known   bool // false: the ledger had no record of it when asked
}

func newIssuers(l *ledger) *issuers { return &issuers{ledger: l, by: map[[32]byte]issuance{}} }

// record notes in memory that fp was issued to a; persist writes it to the
// ledger. A fingerprint already known keeps its first issuer: content
// cannot be issued twice.
func (p *issuers) record(fp [32]byte, a Account) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.remember(fp, issuance{account: a, known: true})
}

// remember is record with the lock held; a known issuance replaces an
// unknown one.
func (p *issuers) remember(fp [32]byte, is issuance) {
	if old, ok := p.by[fp]; ok {
		if !old.known && is.known {
			p.by[fp] = is
		}
		return
	}
	if len(p.order) < maxIssued {
		p.order = append(p.order, fp)
	} else {
		delete(p.by, p.order[p.head])
		p.order[p.head] = fp
		p.head = (p.head + 1) % maxIssued
	}
	p.by[fp] = is
}

// persist writes the items of one response, issued to a, to the ledger.
func (p *issuers) persist(ctx context.Context, fps [][32]byte, a Account) error {
	return p.ledger.recordIssued(ctx, fps, a)
}

// issuer returns the account fp was issued to, ok false when neither memory
// nor the ledger knows it.
func (p *issuers) issuer(ctx context.Context, fp [32]byte) (Account, bool, error) {
	p.mu.Lock()
	is, ok := p.by[fp]
	p.mu.Unlock()
	if ok {
		return is.account, is.known, nil
	}
	a, known, err := p.ledger.issuer(ctx, fp)
	if err != nil {
		return a, false, err
	}
	p.mu.Lock()
	p.remember(fp, issuance{account: a, known: known})
	p.mu.Unlock()
	return a, known, nil
}

// omit applies the configured rule to one payload of flight fl.
func (p *Proxy) omit(ctx context.Context, body []byte, pl placed, fl *flight) (filter.Result, error) {
	if p.cfg.Rule == RuleTurn {
		return pl.turn.Apply(ctx, body, nil)
	}
	var failed atomic.Pointer[error]
	res, err := filter.Select(ctx, body, filter.Options{StripPairedIDs: true, NoCopy: true}, nil, p.provenance(ctx, fl, &failed))
	if e := failed.Load(); err == nil && e != nil {
		return res, *e
	}
	return res, err
}

// provenance is the provenance rule's decision for the items of flight
// fl: an item is kept only when it is recorded as issued to fl's issuer
// (its upstream and account). An item of unknown issuer is omitted and
// counted in fl.unknown: it was issued before the proxy saw the thread, or
// past the ledger's bound, and the supplier rejects a whole request for one
// such item of another account, while omitting one of the same account
// costs only that item's reasoning (docs/protocol.md §11). An issuer the
// ledger could not be asked about is stored in failed (the first one; the
// decisions may run on another goroutine than the one that reads it), and
// the request must then not be sent.
func (p *Proxy) provenance(ctx context.Context, fl *flight, failed *atomic.Pointer[error]) func(filter.Candidate) bool {
	return func(c filter.Candidate) bool {
		issuer, known, err := p.issuers.issuer(ctx, c.Fingerprint)
		switch {
		case err != nil:
			failed.CompareAndSwap(nil, &err)
			return true
		case known:
			return issuer != fl.account
		}
		fl.unknown.Add(1)
		return true
	}
}

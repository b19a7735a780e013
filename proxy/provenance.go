package proxy

import "sync"

// maxIssued bounds the issuance records; the oldest go first. At about
// 100 bytes a record this is some 13 MB at most, and a history that old has
// long been compacted.
const maxIssued = 1 << 17

// issuers records which account each reasoning and compaction item was
// issued to, by the fingerprint of its encrypted_content. It lives in memory
// only: after a restart an item's issuer is unknown, which the provenance
// rule treats as foreign only in sessions seen with more than one account.
type issuers struct {
	mu    sync.Mutex
	by    map[[32]byte]Account
	order [][32]byte // insertion order, for eviction
	head  int        // the oldest live entry of order once it is full
}

func newIssuers() *issuers { return &issuers{by: map[[32]byte]Account{}} }

// record notes that fp was issued to a. A fingerprint already known keeps
// its first issuer: content cannot be issued twice.
func (p *issuers) record(fp [32]byte, a Account) {
	p.mu.Lock()
	defer p.mu.Unlock()
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

// issuer returns the account fp was issued to, ok false when unknown.
func (p *issuers) issuer(fp [32]byte) (Account, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, ok := p.by[fp]
	return a, ok
}

package filter

import (
	"context"
	"crypto/sha256"
	"sync/atomic"
)

// Kind is what an encrypted input item is.
type Kind uint8

// The items Select decides about.
const (
	Reasoning  Kind = iota + 1 // type "reasoning"
	Compaction                 // type "compaction" with encrypted_content
)

// Candidate is one encrypted input item as Select's caller sees it: never
// its ciphertext, only the fingerprint that the caller can match against
// what it recorded when the item was issued (Fingerprint).
type Candidate struct {
	Kind        Kind
	Index       int      // position in input
	Fingerprint [32]byte // SHA-256 over the decoded encrypted_content
}

// Fingerprint is the fingerprint Select reports for an item whose
// encrypted_content decodes to content, so a caller that saw the item in a
// response can recognise it when it is replayed.
func Fingerprint(content string) [32]byte { return sha256.Sum256([]byte(content)) }

// Select filters one payload by the caller's decision about each encrypted
// item — every reasoning item and every compaction item with
// encrypted_content — instead of by a turn's baseline: omit is called once
// per item, in input order and never concurrently, and the items it answers
// true for are cut out byte-faithfully, as Turn cuts them (with
// StripPairedIDs, the id of the item after an omitted reasoning item goes;
// a compaction item pairs with nothing). The bounds, the cancellation and
// revocation polling, and Result are those of Turn.Apply; Omitted counts
// reasoning and compaction items apart. payload is only read, never
// retained, and no goroutine reads it once Select has returned.
func Select(ctx context.Context, payload []byte, opts Options, revoked func() error, omit func(Candidate) bool) (Result, error) {
	fp := fingerprinter{ctx: ctx, revoked: revoked, spent: new(atomic.Int64)}
	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	sc, err := scanHashed(&fp, payload, opts, true, defaultWays, nil, omit)
	if err != nil {
		return Result{}, err
	}
	t := &Turn{opts: opts}
	res, err := t.finish(Result{Omitted: sc.h.omitted}, payload, sc.d, sc.fin)
	if err != nil {
		return Result{}, err
	}
	if err := fp.poll(); err != nil {
		return Result{}, err
	}
	return res, nil
}

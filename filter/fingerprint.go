package filter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync/atomic"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/jsonscan"
)

// fingerprinter hashes the ciphertexts of one call. It owns the call's work
// bound: every chunk is counted in UTF-16 code units of the decoded value,
// and before each chunk it polls cancellation and revocation, so a call
// stops within one chunk of either.
type fingerprinter struct {
	ctx     context.Context
	revoked func() error
	onChunk func() // test hook: called after each chunk is hashed
	h       hash.Hash
	buf     []byte // decoded chunk of an escaped ciphertext, allocated on first use
	units   int    // code units this fingerprinter hashed
	// spent counts the code units hashed in the whole call, across every
	// fingerprinter of it (see Turn.decide): the work bound is per call.
	spent *atomic.Int64
	// stop, when set, ends the hashing at the next chunk: another
	// fingerprinter of the call failed.
	stop *atomic.Bool
}

// sibling returns a fingerprinter for another goroutine of the same call:
// same context, revocation check, test hook and work bound.
func (f *fingerprinter) sibling() *fingerprinter {
	return &fingerprinter{ctx: f.ctx, revoked: f.revoked, onChunk: f.onChunk, spent: f.spent, stop: f.stop}
}

// poll reports cancellation or revocation.
func (f *fingerprinter) poll() error {
	if err := f.ctx.Err(); err != nil {
		return err
	}
	if f.revoked != nil {
		return f.revoked()
	}
	return nil
}

// fingerprint returns SHA-256 over the decoded value of the string content
// raw and its length in UTF-16 code units. Without escapes (the normal case)
// the payload's own bytes are hashed in place; plain says a validating scan
// found them printable ASCII without escapes (the filter's own, or the
// wire's, through jsonscan.Spans), so they are neither searched for a
// backslash nor counted: their length is their UTF-16 length, and SHA-256
// is the one pass over them.
func (f *fingerprinter) fingerprint(raw []byte, plain bool) (fp [32]byte, units int, err error) {
	if f.h == nil {
		f.h = sha256.New()
	}
	f.h.Reset()
	before := f.units
	if plain || bytes.IndexByte(raw, '\\') < 0 {
		for len(raw) > 0 {
			n := min(len(raw), ChunkUnits)
			u := n
			if !plain {
				u = utf16Units(raw[:n])
			}
			if err = f.chunk(raw[:n], u); err != nil {
				return fp, 0, err
			}
			raw = raw[n:]
		}
	} else if err = f.escaped(raw); err != nil {
		return fp, 0, err
	}
	f.h.Sum(fp[:0])
	return fp, f.units - before, nil
}

// escaped decodes raw chunk by chunk into a reusable buffer and hashes it.
func (f *fingerprinter) escaped(raw []byte) error {
	if f.buf == nil {
		f.buf = make([]byte, 0, ChunkUnits)
	}
	buf := f.buf[:0]
	for len(raw) > 0 {
		// One escape decodes to at most 4 bytes; keep room for it.
		if len(buf) > ChunkUnits-8 {
			if err := f.chunk(buf, utf16Units(buf)); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if raw[0] == '\\' {
			var n int
			if buf, n = jsonscan.AppendEscape(buf, raw); n == 0 {
				return diag.New(diag.InvalidPayload, "payload is not valid JSON (bad escape in encrypted_content)")
			}
			raw = raw[n:]
			continue
		}
		j := bytes.IndexByte(raw, '\\')
		if j < 0 {
			j = len(raw)
		}
		j = min(j, ChunkUnits-len(buf))
		buf = append(buf, raw[:j]...)
		raw = raw[j:]
	}
	if len(buf) == 0 {
		return nil
	}
	return f.chunk(buf, utf16Units(buf))
}

// chunk hashes at most ChunkUnits bytes of decoded value (units code
// units, never more than its bytes) after polling and charging the bound.
func (f *fingerprinter) chunk(c []byte, units int) error {
	if f.stop != nil && f.stop.Load() {
		return errStopped
	}
	if err := f.poll(); err != nil {
		return err
	}
	f.units += units
	if f.spent.Add(int64(units)) > MaxHashedUnits {
		return diag.Newf(diag.ReasoningWorkLimit, "encrypted reasoning exceeds %d UTF-16 code units in one payload", MaxHashedUnits).With("limit", MaxHashedUnits)
	}
	f.h.Write(c)
	if f.onChunk != nil {
		f.onChunk()
	}
	return nil
}

// utf16Units counts the UTF-16 code units of (WTF-)UTF-8 bytes: one per
// sequence, two for four-byte sequences. It counts per byte, so a chunk
// boundary inside a sequence does not change the total. ASCII, the normal
// case for base64 ciphertext, is recognised eight bytes at a time.
func utf16Units(c []byte) int {
	// Four accumulators, so the loads are not one chain of ORs.
	var a0, a1, a2, a3 uint64
	i := 0
	for ; i+32 <= len(c); i += 32 {
		w := c[i : i+32 : i+32]
		a0 |= binary.LittleEndian.Uint64(w)
		a1 |= binary.LittleEndian.Uint64(w[8:])
		a2 |= binary.LittleEndian.Uint64(w[16:])
		a3 |= binary.LittleEndian.Uint64(w[24:])
	}
	for ; i+8 <= len(c); i += 8 {
		a0 |= binary.LittleEndian.Uint64(c[i:])
	}
	for ; i < len(c); i++ {
		a1 |= uint64(c[i])
	}
	if (a0|a1|a2|a3)&0x8080808080808080 == 0 {
		return len(c)
	}
	n := 0
	for _, x := range c {
		if x&0xC0 != 0x80 {
			n++
		}
		if x >= 0xF0 {
			n++
		}
	}
	return n
}

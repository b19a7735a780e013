package filter

import (
	"context"
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/continuity-dev/continuity/jsonscan"
)

// Followed is a turn's payload filtered while it arrives, before anyone
// knows whether it will be filtered at all: the plugin's wire reads a
// 64 MiB llm/payload frame into one buffer, and the scan, the
// fingerprinting and the final bytes of a turn's first payload (every
// reasoning item omitted) follow the bytes as they land, so that when the
// frame's newline arrives little of the filter's work is left
// (Turn.ApplyFollowed takes it from there).
//
// Its work is speculative and pure: it reads the buffer, and touches no
// turn, baseline or retry state. Everything it found is used only by
// ApplyFollowed, for a payload that is exactly the followed object, and
// only as far as the turn's own decision agrees (a turn's first payload
// omits all; a later one decides again from the fingerprints); anything
// else — a payload that fails, a frame that was not what its prefix
// promised — is filtered again by Turn.Apply, so the result is always
// Apply's.
//
// A Followed owns its goroutines: exactly one Close ends it, from any
// goroutine, and returns once none of them reads the buffer any more
// (ApplyFollowed does not close it). Arrived and Finish are for the reader.
type Followed struct {
	buf    []byte
	opts   Options
	st     *Stream
	cancel context.CancelFunc
	// poll is the revocation check of the call that took the payload
	// (ApplyFollowed), polled once per hashing chunk: nil until then.
	poll atomic.Pointer[func() error]
	done chan struct{} // closed once the speculative Send has returned
	once sync.Once
	// taken says ApplyFollowed answered a call from this work (Taken).
	taken atomic.Bool

	// Set before done is closed.
	res    Result // Omitted; Pieces when anything was omitted; SHA256
	pieces [][]byte
	err    error
}

// followedStrip is the id stripping a Followed assumes: every provider the
// plugin filters strips paired ids; a Turn that does not is decided again.
const followedStrip = true

// FollowPayload starts following a payload that is a JSON object starting
// at buf[0] and ending where that object closes, somewhere in buf, while
// the caller reads it into buf: Arrived reports how much has arrived
// (buf[:n] must not change from then until Close has returned), Finish
// that nothing more will. opts.Prevalidated says the bytes will have been
// validated before the result is used — they are still scanned as they
// arrive, before that validation has judged them, so it is only for a
// reader that validates every byte before reporting it.
//
// long, for a prevalidated payload, are the spans its validator publishes
// as it passes the bytes (jsonscan.Validator.Follow), each published
// before Arrived (or Finish) reports the bytes it covers: the scan steps
// over each recorded string without searching it, fails a string still
// open at the latest publication without searching what has arrived of
// it, and hashes a plain ciphertext without searching it for escapes or
// counting it. They are ignored unless
// opts.Prevalidated.
func FollowPayload(buf []byte, opts Options, long jsonscan.Spans) *Followed {
	ctx, cancel := context.WithCancel(context.Background())
	opts.StripPairedIDs = followedStrip
	f := &Followed{buf: buf, opts: opts, cancel: cancel, done: make(chan struct{})}
	f.st = start(ctx, buf, opts, openArrival(len(buf)), false, f.polled, long)
	go f.run()
	return f
}

// polled is the bound call's revocation check (nil before one is bound).
func (f *Followed) polled() error {
	if p := f.poll.Load(); p != nil {
		return (*p)()
	}
	return nil
}

// run is the speculative Send of a turn's first payload: every candidate
// omitted, the final bytes kept as slices of buf and summed as they become
// final.
func (f *Followed) run() {
	defer close(f.done)
	sum := sha256.New()
	res, err := f.st.Send(func(Candidate) bool { return true }, func(b []byte) error {
		f.pieces = append(f.pieces, b)
		for len(b) > 0 {
			if err := f.polled(); err != nil {
				return err
			}
			n := min(len(b), ChunkUnits)
			sum.Write(b[:n])
			b = b[n:]
		}
		return nil
	})
	if err != nil {
		f.err = err
		return
	}
	sum.Sum(res.SHA256[:0])
	f.res = res
}

// Arrived reports that buf[:n] has arrived.
func (f *Followed) Arrived(n int) { f.st.Arrived(n) }

// Finish reports that nothing arrives after buf[:n].
func (f *Followed) Finish(n int) { f.st.arrive.finish(n) }

// Close stops the following — the scan stops waiting for bytes, the
// hashing and the final sum stop within a chunk — and returns once nothing
// of it reads the buffer. Later calls do nothing.
func (f *Followed) Close() {
	f.once.Do(func() {
		f.st.arrive.stop()
		f.cancel()
		<-f.done
	})
}

// Taken reports whether ApplyFollowed answered its call from the work
// done while the payload arrived, rather than filtering it again: a
// caller's tests tell the followed path from the fallback by it.
func (f *Followed) Taken() bool { return f.taken.Load() }

// covers reports whether payload is exactly the followed object: the same
// bytes of the same buffer.
func (f *Followed) covers(payload []byte) bool {
	return len(payload) > 0 && unsafe.SliceData(payload) == unsafe.SliceData(f.buf) && len(payload) == int(f.st.end.Load())
}

// redecide is the final bytes of the followed payload decided by omit
// instead of all omitted, from the fingerprints the following took: the
// same walk as Apply's, after the fact.
func (t *Turn) redecide(f *Followed, payload []byte, omit func(Candidate) bool) (Result, error) {
	h := f.st.h
	ds := newDecisions()
	ds.init(len(h.done))
	var om Omitted
	for r, x := range h.done {
		o := omit(x.c)
		if o {
			om.count(x.kind, x.units)
		}
		ds.set(r, o)
	}
	return t.finish(Result{Omitted: om}, payload, f.st.shape.d, summing{ds: ds})
}

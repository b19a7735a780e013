package gemini

import (
	"context"
	"errors"
	"slices"
)

// sendEvery is the least number of settled bytes Send emits at a time
// while the payload arrives, so that the hand-overs to the caller, and
// Send's looks at what is indexed, stay few. A variable only so that
// tests can send small payloads in small steps.
var sendEvery = 256 << 10

// errSettledChanged is Send's failure when the whole payload's edits do
// not extend those of the bytes it already emitted; it means a bug, and
// the caller must abort what it sent.
var errSettledChanged = errors.New("gemini: the filtered payload disagrees with what was already sent")

// Send filters the followed payload as it is scanned, emitting the output
// bytes (slices of the payload and the Sentinel literal, never copies) as
// their fate is settled, a batch of slices at a time, so that a caller can forward them while the
// payload still arrives. A content is settled once a later user message
// has been indexed: it is then of an earlier turn whatever follows, and its
// signatures are decided (keep is called for them, in payload order) with
// Current false. What could still be in the current turn waits for the
// whole payload. keep nil keeps every signature, unexamined, as a policy
// that is off does.
//
// Before the last bytes are emitted, last is called with the whole Doc;
// its error stops Send with nothing more emitted. Every error (the scan's,
// ErrStopped, keep's context, a bound, emit's, last's) leaves the output
// incomplete: the caller must then make sure it is never taken as whole.
// The concatenation of what Send emits is what Select's Pieces make of
// the same payload with the same decisions.
func (f *Follower) Send(ctx context.Context, keep func(Candidate) bool, emit func([][]byte) error, last func(*Doc) error) (Omitted, error) {
	sel := newSelection(keep)
	sent := 0      // the payload's bytes before sent are emitted
	var out []edit // the edits of payload[:sent], as emitted
	kept := -1     // the last content emitted that stays, -1 before any
	look := max(1, sendEvery/4)
	for seen := 0; ; {
		// Nothing can be settled past what is indexed: look again once
		// sendEvery bytes past what went are indexed, and then every
		// quarter of it, not at every content.
		part, ended := f.awaitIndexed(max(sent+sendEvery, seen+look))
		if ended {
			break
		}
		seen = part.indexedEnd()
		settled := part.lastMessage() // contents before it are settled
		if settled <= 0 || part.contents[settled-1].end-sent < sendEvery {
			continue
		}
		part.contents = part.contents[:settled]
		last := &part.contents[settled-1]
		part.parts = part.parts[:last.first+last.n]
		if err := sel.decide(ctx, &part, len(part.parts), settled); err != nil {
			return sel.om, err
		}
		k := lastKept(&part, sel.dropped, max(kept, 0))
		if k < 0 {
			continue // a leading run that goes is cut up to the first content kept
		}
		edits := sel.editsFrom(&part, max(kept, 0), sent)
		if err := emit(apply(part.payload[:last.end], edits, sent)); err != nil {
			return sel.om, err
		}
		out, sent, kept = append(out, edits...), last.end, k
	}
	d, err := f.Doc()
	if err != nil {
		return sel.om, err
	}
	if err := sel.decide(ctx, d, len(d.parts), d.current); err != nil {
		return sel.om, err
	}
	edits := sel.edits(d, &sel.om)
	if len(edits) < len(out) || !sameEdits(edits[:len(out)], out) || len(edits) > len(out) && edits[len(out)].start < sent {
		return sel.om, errSettledChanged
	}
	if err := last(d); err != nil {
		return sel.om, err
	}
	if err := emit(apply(d.payload, edits[len(out):], sent)); err != nil {
		return sel.om, err
	}
	return sel.om, nil
}

// lastMessage is the index of the last content that starts a turn, 0 when
// none does: the contents before it are of earlier turns.
func (d *Doc) lastMessage() int {
	for k := len(d.contents) - 1; k > 0; k-- {
		if d.contents[k].message {
			return k
		}
	}
	return 0
}

// lastKept is the index of the last of d's contents from from on that
// stays (not every part of it dropped), -1 when none does.
func lastKept(d *Doc, dropped []bool, from int) int {
	for k := len(d.contents) - 1; k >= from; k-- {
		if !contentGone(d, dropped, &d.contents[k]) {
			return k
		}
	}
	return -1
}

// editsFrom are the edits of d's decided contents that start at or after
// byte at, the end of the contents already emitted, of which content
// from, emitted too, stays (or from is 0): they are the edits that
// sel.edits gives past at, worked out from content from on rather than
// again from the first content at each emission. Each content's cuts
// depend only on itself and, for one that goes whole, on the end of the
// content before it once an earlier one stays; so from a content that
// stays on, the cuts are those of the whole array. Send checks the edits
// it emitted this way against the whole payload's before its last bytes.
func (sel *selection) editsFrom(d *Doc, from, at int) []edit {
	view := *d
	view.contents = d.contents[from:]
	start := view.contents[0].start
	i, _ := slices.BinarySearchFunc(sel.members, start, func(e edit, t int) int { return e.start - t })
	var scratch Omitted
	edits := view.cutParts(sel.members[i:], sel.dropped[:len(d.parts)], &scratch)
	j, _ := slices.BinarySearchFunc(edits, at, func(e edit, t int) int { return e.start - t })
	return edits[j:]
}

// contentGone reports whether every part of c is dropped.
func contentGone(d *Doc, dropped []bool, c *content) bool {
	if c.n == 0 {
		return false
	}
	for j := c.first; j < c.first+c.n; j++ {
		if !dropped[j] {
			return false
		}
	}
	return true
}

// sameEdits reports whether a and b make the same edits.
func sameEdits(a, b []edit) bool {
	return slices.EqualFunc(a, b, func(x, y edit) bool {
		return x.start == y.start && x.end == y.end && string(x.with) == string(y.with)
	})
}

// Key waits until the conversation's key is settled — the scan has
// indexed a content that is not the user's after the leading ones, or has
// ended — and returns what Doc.Key returns for the whole payload; err is
// the scan's when it ended in one (ErrStopped when the payload stopped
// arriving).
func (f *Follower) Key() (key string, ok bool, err error) {
	for seen := 0; ; {
		part, ended := f.awaitIndexed(seen + 1) // one more content
		if ended {
			d, err := f.Doc()
			if err != nil {
				return "", false, err
			}
			key, ok = d.Key()
			return key, ok, nil
		}
		seen = part.indexedEnd()
		if slices.ContainsFunc(part.contents, func(c content) bool { return !c.user }) {
			key, ok = part.Key()
			return key, ok, nil
		}
	}
}

package gemini

import (
	"context"
	"crypto/sha256"
	"sort"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/jsonscan"
)

// Candidate is one thoughtSignature of a payload, as the caller's decision
// sees it: never the signature itself, only its fingerprint and place.
type Candidate struct {
	Fingerprint   [32]byte
	Content, Part int  // the content's index and the part's index within it
	Current       bool // the part is in the current turn
	Thought       bool // a thought part (thought: true)
	FunctionCall  bool
}

// Omitted counts what a filtered payload lost.
type Omitted struct {
	Signatures int // thoughtSignature members removed or replaced by Sentinel
	Parts      int // thought parts dropped whole
	Contents   int // contents dropped because none of their parts was left
	Sentinels  int // current-turn function calls given Sentinel
}

// Result is a filtered payload: Pieces, in order, are the output bytes —
// slices of the payload and the Sentinel literal, never copies.
type Result struct {
	Pieces  [][]byte
	Omitted Omitted
}

// Changed reports whether the output differs from the payload.
func (r Result) Changed() bool { return r.Omitted.Signatures > 0 }

// Len is the output's length in bytes.
func (r Result) Len() int {
	n := 0
	for _, p := range r.Pieces {
		n += len(p)
	}
	return n
}

// sentinelJSON is Sentinel as a JSON string.
var sentinelJSON = []byte(`"` + Sentinel + `"`)

// Fingerprint is what a signature is known by: SHA-256 over a domain label
// and the signature's decoded value, so it cannot equal a Responses
// fingerprint of the same bytes.
func Fingerprint(signature []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte("gemini-thought-signature\x00"))
	h.Write(signature)
	var fp [32]byte
	h.Sum(fp[:0])
	return fp
}

// edit replaces the payload's bytes [start, end) with with.
type edit struct {
	start, end int
	with       []byte
}

// Select filters the payload d was scanned from: keep is called once per
// thoughtSignature that is not Sentinel, in payload order and never
// concurrently, and what it does not keep goes by the rules of the package
// doc. Cancellation is polled before each signature.
func (d *Doc) Select(ctx context.Context, keep func(Candidate) bool) (Result, error) {
	sel := newSelection(keep)
	if err := sel.decide(ctx, d, len(d.parts), d.current); err != nil {
		return Result{}, err
	}
	if sel.om.Signatures == 0 {
		return Result{Pieces: [][]byte{d.payload}}, nil
	}
	edits := sel.edits(d, &sel.om)
	return Result{Pieces: apply(d.payload, edits, 0), Omitted: sel.om}, nil
}

// selection is the state of one payload's filtering: the decisions made
// so far, for the parts before next, which Send makes in steps as the
// payload arrives and Select in one.
type selection struct {
	keep    func(Candidate) bool // nil keeps every signature unexamined
	next    int                  // the first part not yet decided
	dropped []bool               // by part: a thought part that goes whole
	members []edit               // the member edits, in payload order
	hashed  int
	om      Omitted
	sc      jsonscan.Scanner // for its scratch buffer
}

func newSelection(keep func(Candidate) bool) *selection { return &selection{keep: keep} }

// decide decides the signatures of d's parts up to (not including) part
// upTo, as in the current turn from content current on.
func (sel *selection) decide(ctx context.Context, d *Doc, upTo, current int) error {
	for ; sel.next < upTo; sel.next++ {
		j := sel.next
		sel.dropped = append(sel.dropped, false)
		p := &d.parts[j]
		if p.sigKey < 0 || sel.keep == nil {
			continue
		}
		raw := d.payload[p.sig.start+1 : p.sig.end-1]
		if err := ctx.Err(); err != nil {
			return err
		}
		if sel.hashed += len(raw); sel.hashed > MaxSignatureBytes {
			return diag.Newf(diag.ReasoningWorkLimit, "payload's thought signatures exceed %d bytes", MaxSignatureBytes).With("limit", MaxSignatureBytes)
		}
		val, ok := sel.sc.Decoded(raw)
		if !ok {
			return diag.Newf(diag.InvalidPayload, "a thoughtSignature of content %d has a bad escape", p.content)
		}
		if string(val) == Sentinel {
			continue
		}
		c := &d.contents[p.content]
		cand := Candidate{Fingerprint: Fingerprint(val), Content: p.content, Part: j - c.first,
			Current: p.content >= current, Thought: p.thought, FunctionCall: p.functionCall}
		if sel.keep(cand) {
			continue
		}
		sel.om.Signatures++
		switch {
		case p.thought:
			sel.dropped[j] = true
			sel.om.Parts++
		case cand.Current && p.functionCall:
			sel.members = append(sel.members, edit{p.sig.start, p.sig.end, sentinelJSON})
			sel.om.Sentinels++
		default:
			sel.members = append(sel.members, d.cutMember(p))
		}
	}
	return nil
}

// edits are the sorted, disjoint edits the decisions make to d, whose
// parts must all be decided; the contents dropped are counted in om.
func (sel *selection) edits(d *Doc, om *Omitted) []edit {
	return d.cutParts(sel.members, sel.dropped[:len(d.parts)], om)
}

// cutMember is the edit that removes p's thoughtSignature member with the
// comma before it, or after it when it is the first member.
func (d *Doc) cutMember(p *part) edit {
	switch {
	case p.sigPrev >= 0:
		return edit{start: p.sigPrev, end: p.sig.end}
	case p.sigNext >= 0:
		return edit{start: p.sigKey, end: p.sigNext}
	}
	return edit{start: p.sigKey, end: p.sig.end}
}

// cutParts adds the edits that remove the dropped parts, and the contents
// left without parts, from their arrays; the member edits inside a removed
// element are discarded.
func (d *Doc) cutParts(edits []edit, dropped []bool, om *Omitted) []edit {
	var contentGone []bool
	var cuts []edit
	for k := range d.contents {
		c := &d.contents[k]
		all := c.n > 0
		for j := c.first; j < c.first+c.n; j++ {
			all = all && dropped[j]
		}
		if all {
			if contentGone == nil {
				contentGone = make([]bool, len(d.contents))
			}
			contentGone[k] = true
			om.Contents++
			continue
		}
		cuts = append(cuts, removeElements(d.parts[c.first:c.first+c.n], dropped[c.first:c.first+c.n], func(p part) span { return p.span })...)
	}
	if contentGone != nil {
		cuts = append(cuts, removeElements(d.contents, contentGone, func(c content) span { return c.span })...)
	}
	// The array cuts are disjoint: a content's parts are cut only when the
	// content stays.
	sort.Slice(cuts, func(a, b int) bool { return cuts[a].start < cuts[b].start })
	n := len(cuts)
	for _, e := range edits {
		i := sort.Search(n, func(i int) bool { return cuts[i].start > e.start }) - 1
		if i < 0 || cuts[i].end < e.end {
			cuts = append(cuts, e)
		}
	}
	sort.Slice(cuts, func(a, b int) bool { return cuts[a].start < cuts[b].start })
	return cuts
}

// removeElements returns the edits that remove the elements of one array
// marked gone, each with one comma: the elements before the first one kept
// go with the commas after them, every later one with the comma before it.
func removeElements[E any](elems []E, gone []bool, at func(E) span) []edit {
	var cuts []edit
	kept := -1
	for i := range elems {
		if !gone[i] {
			if kept < 0 && i > 0 {
				cuts = append(cuts, edit{start: at(elems[0]).start, end: at(elems[i]).start})
			}
			kept = i
			continue
		}
		if kept >= 0 {
			cuts = append(cuts, edit{start: at(elems[i-1]).end, end: at(elems[i]).end})
		}
	}
	if kept < 0 && len(elems) > 0 {
		cuts = append(cuts, edit{start: at(elems[0]).start, end: at(elems[len(elems)-1]).end})
	}
	return cuts
}

// apply returns payload from byte at on with the sorted, disjoint edits
// made, which all start at or after at, as pieces.
func apply(payload []byte, edits []edit, at int) [][]byte {
	out := make([][]byte, 0, 2*len(edits)+1)
	for _, e := range edits {
		if e.start > at {
			out = append(out, payload[at:e.start])
		}
		if len(e.with) > 0 {
			out = append(out, e.with)
		}
		at = e.end
	}
	if at < len(payload) {
		out = append(out, payload[at:])
	}
	return out
}

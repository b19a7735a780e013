package filter

import "github.com/continuity-dev/continuity/diag"

// classify decides what the top-level object item at position index is from
// its members. Only member names and the short type and status values are
// read; every other value was skipped.
func (s *scanner) classify(it *item, index int, members []member, d *doc) error {
	b := s.B
	typ, cipher, status := -1, -1, -1
	for k := range members {
		m := &members[k]
		name, ok := s.Decoded(b[m.key.start+1 : m.key.end-1])
		if !ok {
			return syntaxError(m.key.start)
		}
		var slot *int
		switch string(name) {
		case "type":
			slot = &typ
		case "encrypted_content":
			slot = &cipher
		case "status":
			slot = &status
		case "id":
			m.isID = true
			it.ids++
		case "role":
			it.role = m.val // the last one, as a placing reader takes it
		}
		if slot != nil {
			if *slot >= 0 {
				return diag.Newf(diag.InvalidPayload, "input item %d repeats a member name", index).With("item", index)
			}
			*slot = k
		}
	}
	if it.ids > 0 {
		from := len(d.idRanges)
		d.idRanges = appendCuts(roomFor(d.idRanges, len(members)/2+1), len(members),
			func(k int) span { return members[k].span },
			func(k int) bool { return members[k].isID })
		it.idRemove = span{from, len(d.idRanges)}
	}
	if typ < 0 {
		return nil
	}
	it.typ = members[typ].val
	tv := b[it.typ.start:it.typ.end]
	switch {
	case s.StrIs(tv, "reasoning"):
		it.kind = kindReasoning
	case s.compaction && s.StrIs(tv, "compaction") && cipher >= 0 && s.nonEmptyString(members[cipher].val):
		it.kind = kindCompaction
		it.cipher = span{members[cipher].val.start + 1, members[cipher].val.end - 1}
		it.cipherPlain = members[cipher].plain
		return nil
	case s.StrIs(tv, "compaction"), s.StrIs(tv, "item_reference"):
		it.kind = kindBound
		return nil
	default:
		return nil
	}
	if status >= 0 && !s.StrIs(b[members[status].val.start:members[status].val.end], "completed") {
		d.unsupported(index, "has a status other than completed")
		return nil
	}
	if cipher < 0 {
		d.unsupported(index, "has no encrypted_content")
		return nil
	}
	cv := members[cipher].val
	if !s.nonEmptyString(cv) {
		d.unsupported(index, "has an encrypted_content that is not a non-empty string")
		return nil
	}
	it.cipher = span{cv.start + 1, cv.end - 1}
	it.cipherPlain = members[cipher].plain
	return nil
}

// unsupported records the first unsupported reasoning item; it is reported
// only after the whole payload has been validated, so malformed JSON is
// always INVALID_PAYLOAD whatever it contains.
func (d *doc) unsupported(index int, why string) {
	if d.problem == nil {
		d.problem = diag.Newf(diag.UnsupportedReasoning, "reasoning input item %d %s", index, why).With("item", index)
	}
}

// nonEmptyString reports whether the value v is a string with content.
func (s *scanner) nonEmptyString(v span) bool {
	return s.B[v.start] == '"' && v.end-v.start > 2
}

package gemini

import (
	"bytes"
	"strconv"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/jsonscan"
)

// repeated names a member the filter reads that appears twice: no silent
// last-wins.
func repeated(where, name string) error {
	return diag.Newf(diag.InvalidPayload, "%s repeats its %s member", where, name)
}

// scanContent indexes the content at i and returns its end.
func (d *Doc) scanContent(s *jsonscan.Scanner, i int) (int, error) {
	k := len(d.contents)
	c := content{span: span{start: i}, user: true, first: len(d.parts)}
	where := func() string { return "content " + strconv.Itoa(k) }
	roleSeen := false
	end, err := members(s, i, where, func(keyStart, keyEnd, v int) (int, error) {
		name := s.B[keyStart:keyEnd]
		switch {
		case s.StrIs(name, "role"):
			if roleSeen {
				return 0, repeated(where(), "role")
			}
			roleSeen = true
			end, err := s.Value(v)
			if err != nil {
				return 0, err
			}
			c.user = s.StrIs(s.B[v:end], "user")
			return end, nil
		case s.StrIs(name, "parts"):
			if c.partsFound {
				return 0, repeated(where(), "parts")
			}
			c.partsFound = true
			return elements(s, v, where()+" parts", func(j int) (int, error) {
				if len(d.parts) == MaxParts {
					return 0, diag.Newf(diag.InvalidPayload, "payload has more than %d parts", MaxParts).With("limit", MaxParts)
				}
				return d.scanPart(s, j, k)
			})
		}
		return s.Value(v)
	})
	if err != nil {
		return 0, err
	}
	c.end, c.n = end, len(d.parts)-c.first
	if c.user {
		text, response := false, false
		for _, p := range d.parts[c.first:] {
			text = text || p.text.end-p.text.start > 2
			response = response || p.response
		}
		c.message = text && !response
	}
	d.contents = append(d.contents, c)
	return end, nil
}

// scanPart indexes the part at i of content k and returns its end.
func (d *Doc) scanPart(s *jsonscan.Scanner, i, k int) (int, error) {
	p := part{span: span{start: i}, content: k, sigKey: -1, sigPrev: -1, sigNext: -1}
	n := len(d.parts) - d.contents0(k)
	where := func() string { return "part " + strconv.Itoa(n) + " of content " + strconv.Itoa(k) }
	var seen [5]bool // thoughtSignature, thought, functionCall, functionResponse, text
	once := func(at int, name string) error {
		if seen[at] {
			return repeated(where(), name)
		}
		seen[at] = true
		return nil
	}
	lastEnd := -1 // the end of the previous member's value
	end, err := members(s, i, where, func(keyStart, keyEnd, v int) (int, error) {
		if p.sigKey >= 0 && p.sigNext < 0 {
			p.sigNext = keyStart
		}
		name := s.B[keyStart:keyEnd]
		end, err := s.Value(v)
		if err != nil {
			return 0, err
		}
		val := s.B[v:end]
		switch {
		case s.StrIs(name, "thoughtSignature"):
			if err := once(0, "thoughtSignature"); err != nil {
				return 0, err
			}
			if val[0] != '"' {
				return 0, diag.Newf(diag.InvalidPayload, "%s has a thoughtSignature that is not a string", where())
			}
			if d.sigs == MaxSignatures {
				return 0, diag.Newf(diag.ItemLimit, "payload has more than %d thought signatures", MaxSignatures).With("limit", MaxSignatures)
			}
			d.sigs++
			p.sig, p.sigKey, p.sigPrev = span{v, end}, keyStart, lastEnd
		case s.StrIs(name, "thought"):
			if err := once(1, "thought"); err != nil {
				return 0, err
			}
			p.thought = bytes.Equal(val, []byte("true"))
		case s.StrIs(name, "functionCall"):
			if err := once(2, "functionCall"); err != nil {
				return 0, err
			}
			p.functionCall = true
		case s.StrIs(name, "functionResponse"):
			if err := once(3, "functionResponse"); err != nil {
				return 0, err
			}
			p.response = true
		case s.StrIs(name, "text"):
			if err := once(4, "text"); err != nil {
				return 0, err
			}
			if val[0] == '"' {
				p.text = span{v, end}
			}
		}
		lastEnd = end
		return end, nil
	})
	if err != nil {
		return 0, err
	}
	p.end = end
	d.parts = append(d.parts, p)
	return end, nil
}

// contents0 is the index in d.parts of content k's first part while k is
// being scanned (it is not in d.contents yet).
func (d *Doc) contents0(k int) int {
	if k == 0 {
		return 0
	}
	last := d.contents[k-1]
	return last.first + last.n
}

// currentTurn is the index of the first content of the current turn: the
// last user content with a non-empty text part and no function response,
// as gemini-cli places its active loop (ensureActiveLoopHasThoughtSignatures):
// of the plausible places it is the earliest, so a call Gemini counts in
// the current turn never loses its signature without the sentinel. With
// none, the whole payload is the current turn.
func (d *Doc) currentTurn() int {
	for k := len(d.contents) - 1; k >= 0; k-- {
		if d.contents[k].message {
			return k
		}
	}
	return 0
}

package filter

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The oracle computes the expected output of a call independently of the
// filter's scanner: encoding/json finds the items (Decoder offsets) and
// decodes names and ciphertexts; the separator rule is restated per
// element instead of per run.

// located is one container element found by encoding/json.
type located struct {
	start, end int
	raw        json.RawMessage
	key        string // object members only: the decoded name
}

// elements locates the elements (or members) of the array (or object)
// raw, which starts at offset base of the whole payload.
func elements(raw []byte, base int) ([]located, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	open, err := dec.Token()
	if err != nil {
		return nil, err
	}
	var out []located
	for dec.More() {
		var e located
		if open == json.Delim('{') {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			e.key = k.(string)
		}
		if err := dec.Decode(&e.raw); err != nil {
			return nil, err
		}
		e.end = int(dec.InputOffset())
		e.start = e.end - len(e.raw)
		if !bytes.Equal(raw[e.start:e.end], e.raw) {
			return nil, fmt.Errorf("decoder offsets do not match at %d", base+e.start)
		}
		if open == json.Delim('{') {
			// A member starts at its name: step back over the name and colon.
			e.start = bytes.LastIndexByte(raw[:bytes.LastIndexByte(raw[:e.start], ':')], '"')
			e.start = bytes.LastIndexByte(raw[:e.start], '"')
			for raw[e.start-1] == '\\' { // the name ended in an escaped quote
				e.start = bytes.LastIndexByte(raw[:e.start-1], '"')
			}
		}
		e.start += base
		e.end += base
		out = append(out, e)
	}
	return out, nil
}

// cutElements marks the bytes that dropping the given elements removes:
// each dropped element goes with the separator on its left, unless no
// element on its left survives, in which case it goes with the separator
// on its right.
func cutElements(mask []bool, els []located, drop func(int) bool) {
	survivor := false
	for k, e := range els {
		if !drop(k) {
			survivor = true
			continue
		}
		from, to := e.start, e.end
		switch {
		case survivor:
			from = els[k-1].end
		case k+1 < len(els):
			to = els[k+1].start
		}
		for i := from; i < to; i++ {
			mask[i] = true
		}
	}
}

// oracleDoc is a payload's input items as encoding/json sees them.
type oracleDoc struct {
	payload []byte
	items   []located
	types   []string
	ciphers []string
}

// parseOracle locates and decodes the top-level input items of payload.
func parseOracle(payload []byte) (*oracleDoc, error) {
	d := &oracleDoc{payload: payload}
	open := bytes.IndexByte(payload, '{')
	top, err := elements(payload[open:], open)
	if err != nil {
		return nil, err
	}
	for _, m := range top {
		if m.key != "input" || m.raw[0] != '[' {
			continue
		}
		if d.items, err = elements(m.raw, m.end-len(m.raw)); err != nil {
			return nil, err
		}
	}
	for _, it := range d.items {
		// Exact, case-sensitive names: a map, not struct field matching.
		var m map[string]json.RawMessage
		var typ, cipher string
		if it.raw[0] == '{' {
			if err := json.Unmarshal(it.raw, &m); err != nil {
				return nil, err
			}
			if raw, ok := m["type"]; ok && json.Unmarshal(raw, &typ) != nil {
				typ = ""
			}
			if raw, ok := m["encrypted_content"]; ok && json.Unmarshal(raw, &cipher) != nil {
				cipher = ""
			}
		}
		d.types = append(d.types, typ)
		d.ciphers = append(d.ciphers, cipher)
	}
	return d, nil
}

// expected returns what filtering the payload must produce given the
// decoded ciphertexts of the turn's baseline.
func (d *oracleDoc) expected(base map[string]bool, strip bool) ([]byte, error) {
	payload, items := d.payload, d.items
	mask := make([]bool, len(payload))
	dropped := make([]bool, len(items))
	for k := range items {
		dropped[k] = d.types[k] == "reasoning" && base[d.ciphers[k]]
	}
	cutElements(mask, items, func(k int) bool { return dropped[k] })
	for k := 1; strip && k < len(items); k++ {
		exempt := d.types[k] == "reasoning" || d.types[k] == "compaction" || d.types[k] == "item_reference"
		if !dropped[k-1] || dropped[k] || exempt || items[k].raw[0] != '{' {
			continue
		}
		members, err := elements(items[k].raw, items[k].start)
		if err != nil {
			return nil, err
		}
		cutElements(mask, members, func(j int) bool { return members[j].key == "id" })
	}
	out := make([]byte, 0, len(payload))
	for i := 0; i < len(payload); {
		j := i
		for j < len(payload) && mask[j] == mask[i] {
			j++
		}
		if !mask[i] {
			out = append(out, payload[i:j]...)
		}
		i = j
	}
	return out, nil
}

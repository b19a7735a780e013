package filter

import (
	"errors"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/jsonscan"
)

// Bounds per call (docs/design.md §2.3). They bound the plugin's work, not the
// supplier's request size: there is no whole-request cap.
const (
	MaxItems          = 65536    // top-level input items, else INVALID_PAYLOAD
	MaxReasoningItems = 4096     // reasoning items counting duplicates, else ITEM_LIMIT
	MaxHashedUnits    = 64 << 20 // UTF-16 code units of ciphertext hashed, else REASONING_WORK_LIMIT
	ChunkUnits        = 64 << 10 // hashing chunk; cancellation and revocation are polled per chunk
)

// span is a half-open byte range of the payload.
type span struct{ start, end int }

// itemKind says what the filter needs to know about a top-level item.
type itemKind uint8

const (
	kindOrdinary  itemKind = iota
	kindReasoning          // type "reasoning": fingerprinted, maybe omitted
	kindBound              // compaction or item_reference: its id is content, never stripped
	// kindCompaction is a compaction item with encrypted_content in a scan
	// that selects compaction (Select): fingerprinted and maybe omitted
	// like reasoning, its id never stripped like kindBound's.
	kindCompaction
)

// encrypted reports whether the item is fingerprinted and may be omitted.
func (k itemKind) encrypted() bool { return k == kindReasoning || k == kindCompaction }

// item is one top-level element of input.
type item struct {
	span
	cipher      span  // encrypted_content string content, without quotes (reasoning only)
	idRemove    span  // index range into doc.idRanges of the cuts that remove its id members
	ids         int32 // id members in this item
	typ, role   span  // the type and role members' values, quotes included; empty when absent (Shape)
	kind        itemKind
	cipherPlain bool // cipher is printable ASCII without escapes: its bytes are its value
}

// doc is what one scan learns about a payload.
type doc struct {
	items     []item
	reasoning []int             // indexes into items of reasoning (and selected compaction) items, in order
	idRanges  []span            // cuts removing id members, referenced by item.idRemove
	problem   error             // first UNSUPPORTED_REASONING, reported once the scan validated everything
	top       []jsonscan.Member // the top-level members, in order (Shape)
}

// member is one name/value pair of an object, for separator-exact removal.
type member struct {
	span          // from the name's opening quote to the value's end
	key, val span // the name and the value, quotes included
	isID     bool // the name is "id"
	plain    bool // the value is a string of printable ASCII without escapes
}

// scan validates the payload (unless trusted) and indexes its input items.
func (s *scanner) scan() (*doc, error) {
	d := &doc{}
	sawInput := false
	err := s.Document(func(keyStart, keyEnd, v int) (int, error) {
		end, err := s.member(keyStart, keyEnd, v, d, &sawInput)
		d.top = append(d.top, jsonscan.Member{KeyStart: keyStart, KeyEnd: keyEnd, ValStart: v, ValEnd: end})
		return end, err
	})
	if errors.As(err, new(jsonscan.ErrNotObject)) {
		return nil, diag.New(diag.InvalidPayload, "payload is not a JSON object")
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// member scans the value at v of the top-level member named by
// s.B[keyStart:keyEnd]: input's items are indexed, every other value
// skipped.
func (s *scanner) member(keyStart, keyEnd, v int, d *doc, sawInput *bool) (int, error) {
	b := s.B
	if !s.StrIs(b[keyStart:keyEnd], "input") {
		return s.Value(v)
	}
	if *sawInput {
		return 0, diag.New(diag.InvalidPayload, "payload has more than one input member")
	}
	*sawInput = true
	switch {
	case v < len(b) && b[v] == '[':
		return s.input(v, d)
	case v < len(b) && b[v] == '"':
		// The string shorthand is one user message: nothing to omit.
		return s.Str(v)
	}
	return 0, diag.New(diag.InvalidPayload, "payload input is neither an array nor a string")
}

// input indexes the input array that starts at i.
func (s *scanner) input(i int, d *doc) (int, error) {
	b := s.B
	i = s.WS(i + 1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	s.front.advance(i)
	var members []member
	for {
		if len(d.items) == MaxItems {
			return 0, tooManyItems()
		}
		it := item{span: span{start: i}}
		var err error
		if i < len(b) && b[i] == '{' {
			if members, i, err = s.object(i, members[:0]); err != nil {
				return 0, err
			}
			it.end = i
			if err = s.add(it, members, d); err != nil {
				return 0, err
			}
		} else {
			// A Responses input item is an object; the DSH Copilot plugin
			// refuses anything else with this code, and so does continuity.
			if _, err = s.Value(i); err != nil {
				return 0, err
			}
			return 0, diag.Newf(diag.InvalidPayload, "input item %d is not an object", len(d.items)).With("item", len(d.items))
		}
		i = s.WS(i)
		if i < len(b) && b[i] == ',' {
			i = s.WS(i + 1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		return 0, syntaxError(i)
	}
}

func tooManyItems() error {
	return diag.Newf(diag.InvalidPayload, "input has more than %d items", MaxItems).With("limit", MaxItems)
}

// add classifies the input item it, whose members the scan has just read,
// and appends it to d.
func (s *scanner) add(it item, members []member, d *doc) error {
	if err := s.classify(&it, len(d.items), members, d); err != nil {
		return err
	}
	if it.kind.encrypted() {
		if len(d.reasoning) == MaxReasoningItems {
			return diag.Newf(diag.ItemLimit, "input has more than %d reasoning items", MaxReasoningItems).With("limit", MaxReasoningItems)
		}
		d.reasoning = append(roomFor(d.reasoning, 1), len(d.items))
		s.front.freeze()
	}
	d.items = append(roomFor(d.items, 1), it)
	s.front.advance(it.end)
	s.prog.publish(d, it.kind.encrypted())
	return nil
}

// object skips the object at i, appending its members to dst.
func (s *scanner) object(i int, dst []member) ([]member, int, error) {
	b := s.B
	i = s.WS(i + 1)
	if i < len(b) && b[i] == '}' {
		return dst, i + 1, nil
	}
	for {
		m := member{span: span{start: i}, key: span{start: i}}
		var err error
		if m.key.end, m.val.start, err = s.Key(i); err != nil {
			return nil, 0, err
		}
		if i, err = s.Value(m.val.start); err != nil {
			return nil, 0, err
		}
		m.val.end, m.end = i, i
		m.plain = s.B[m.val.start] == '"' && s.Plain
		dst = append(dst, m)
		i = s.WS(i)
		if i < len(b) && b[i] == ',' {
			i = s.WS(i + 1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return dst, i + 1, nil
		}
		return nil, 0, syntaxError(i)
	}
}

package wire

import (
	"bytes"

	"github.com/continuity-dev/continuity/jsonscan"
)

// A large frame is validated while it arrives: the frame reader feeds
// each read of it to a jsonscan.Validator, which keeps pace with the pipe,
// so when the newline arrives only that last read is left to check. A
// 17 MiB tool result validated after it had fully arrived held every
// request behind it for about 22 ms.

// verdict is what validating a frame while it arrived found: the
// members of the line as read (leading whitespace included in the
// offsets), or why it is not a JSON-RPC object.
type verdict struct {
	members []jsonscan.Member
	// inner are, for each of members whose value is an object, that
	// object's members (nil for any other member), offsets as members'.
	inner [][]jsonscan.Member
	err   error
	// long are the line's long strings (for a valid line), bound to it:
	// the Params cut from the line carry them, so the handler's trusted
	// scans step over a 17 MiB tool output instead of searching it.
	long jsonscan.Spans
}

// checkWhileArriving is false only in the benchmark that compares
// validating a frame while it arrives with validating it afterwards.
var checkWhileArriving = true

// feedLine validates the next bytes of the frame being gathered, up to
// the first newline in b, and returns that newline's index in b (-1: b
// has none, and all of it was fed). The validator looks at every byte, so
// it finds the newline itself (Validator.WriteLine): no second pass over
// each read searches for it.
func (f *frameReader) feedLine(b []byte) int {
	if !checkWhileArriving {
		return bytes.IndexByte(b, '\n')
	}
	if n := f.val.WriteLine(b); n < len(b) {
		return n
	}
	return -1
}

// arrived ends the validation of the frame just gathered into line.
func (f *frameReader) arrived(line []byte) *verdict {
	ms, err := f.val.End(make([]jsonscan.Member, 0, 8))
	v := &verdict{members: ms, err: err, long: f.val.Long(line)}
	if err == nil {
		v.inner = make([][]jsonscan.Member, len(ms))
		for k := range ms {
			if in, ok := f.val.Inner(k, make([]jsonscan.Member, 0, 8)); ok {
				v.inner[k] = in
			}
		}
	}
	return v
}

// long returns the long strings of a frame validated while it arrived.
func (fr frame) long() jsonscan.Spans {
	if fr.checked == nil {
		return jsonscan.Spans{}
	}
	return fr.checked.long
}

// members validates line (fr's line without the whitespace around it, as
// bytes.TrimSpace cut it) and returns its top-level members, with the
// error Scanner.Members reports; trusted says line is known valid, and
// then inner has, for each member whose value is an object, that object's
// members (see verdict), all offsets in line. A
// frame validated while it arrived is not read again, unless TrimSpace
// cut more than JSON whitespace (\v, \f or a Unicode space, which JSON
// does not allow around a document): then the verdict on the line as
// read may differ from the one on line, so line gets its own pass.
func members(fr frame, line []byte) (ms []jsonscan.Member, inner [][]jsonscan.Member, trusted bool, err error) {
	if v := fr.checked; v != nil {
		lead := len(fr.line) - len(trimJSONSpaceLeft(fr.line))
		if len(trimJSONSpaceRight(fr.line[lead:])) == len(line) {
			if v.err != nil {
				return nil, nil, false, v.err
			}
			shift(v.members, lead)
			for _, in := range v.inner {
				shift(in, lead)
			}
			return v.members, v.inner, true, nil
		}
	}
	sc := jsonscan.Scanner{B: line}
	ms, err = sc.Members(make([]jsonscan.Member, 0, 8))
	return ms, nil, false, err
}

// shift moves members' offsets d bytes back.
func shift(ms []jsonscan.Member, d int) {
	for i := range ms {
		m := &ms[i]
		m.KeyStart -= d
		m.KeyEnd -= d
		m.ValStart -= d
		m.ValEnd -= d
	}
}

// jsonSpace is the whitespace JSON allows around a document.
const jsonSpace = " \t\n\r"

func trimJSONSpaceLeft(b []byte) []byte  { return bytes.TrimLeft(b, jsonSpace) }
func trimJSONSpaceRight(b []byte) []byte { return bytes.TrimRight(b, jsonSpace) }

package jsonscan

// Member is one name/value pair of an object, as byte ranges into the
// document.
type Member struct {
	KeyStart, KeyEnd int // the name, quotes included
	ValStart, ValEnd int // the value
}

// NameIs reports whether m's name equals want once unescaped.
func (s *Scanner) NameIs(m Member, want string) bool {
	return s.StrIs(s.B[m.KeyStart:m.KeyEnd], want)
}

// Value returns m's value bytes, a sub-slice of the document.
func (m Member) Value(b []byte) []byte { return b[m.ValStart:m.ValEnd:m.ValEnd] }

// ErrNotObject reports a document that is valid so far but not an object.
type ErrNotObject struct{}

func (ErrNotObject) Error() string { return "the document is not a JSON object" }

// Members scans s.B, which must be one JSON object with only whitespace
// around it, and appends its members to dst in document order. Unless
// s.Trusted, the whole document is validated in the same pass, nested
// values included. A document that is not JSON fails with *SyntaxError; one
// that is JSON but not an object, with ErrNotObject.
func (s *Scanner) Members(dst []Member) ([]Member, error) {
	b := s.B
	i := s.WS(0)
	if i >= len(b) {
		return nil, syntaxError(i)
	}
	if b[i] != '{' {
		end, err := s.Value(i)
		if err != nil {
			return nil, err
		}
		if end = s.WS(end); end != len(b) {
			return nil, syntaxError(end)
		}
		return nil, ErrNotObject{}
	}
	i = s.WS(i + 1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			m := Member{KeyStart: i}
			var err error
			if m.KeyEnd, m.ValStart, err = s.Key(i); err != nil {
				return nil, err
			}
			if i, err = s.Value(m.ValStart); err != nil {
				return nil, err
			}
			m.ValEnd = i
			dst = append(dst, m)
			i = s.WS(i)
			if i < len(b) && b[i] == ',' {
				i = s.WS(i + 1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return nil, syntaxError(i)
		}
	}
	if i = s.WS(i); i != len(b) {
		return nil, syntaxError(i)
	}
	return dst, nil
}

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

// Document scans s.B, which must be one JSON object with only whitespace
// around it, calling value for each member in document order with the
// member's name (quotes included) and the index where its value starts;
// value returns the index just past the value (Skip skips it). Unless
// s.Trusted, everything value does not scan itself is validated. A document
// that is not JSON fails with *SyntaxError; one that is JSON but not an
// object, with ErrNotObject.
func (s *Scanner) Document(value func(keyStart, keyEnd, valStart int) (int, error)) error {
	b := s.B
	i := s.WS(0)
	if i >= len(b) {
		return syntaxError(i)
	}
	if b[i] != '{' {
		end, err := s.Value(i)
		if err != nil {
			return err
		}
		if end = s.WS(end); end != len(b) {
			return syntaxError(end)
		}
		return ErrNotObject{}
	}
	i = s.WS(i + 1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			keyStart := i
			keyEnd, v, err := s.Key(i)
			if err != nil {
				return err
			}
			if i, err = value(keyStart, keyEnd, v); err != nil {
				return err
			}
			i = s.WS(i)
			if i < len(b) && b[i] == ',' {
				i = s.WS(i + 1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return syntaxError(i)
		}
	}
	if i = s.WS(i); i != len(b) {
		return syntaxError(i)
	}
	return nil
}

// Members runs Document and appends every member to dst. A validating scan
// of a large document validates its second half on another goroutine (see
// split) and returns only once that is done. (A Document callback that
// walks arrays itself, like the filter's, would never meet the split, so
// only Members, whose values all go through Value, uses it.)
func (s *Scanner) Members(dst []Member) ([]Member, error) {
	if !s.Trusted && len(s.B) >= parallelFrom {
		s.split = startSplit(s.B)
		defer s.finish()
	}
	err := s.Document(func(keyStart, keyEnd, valStart int) (int, error) {
		end, err := s.Value(valStart)
		if err == nil {
			dst = append(dst, Member{KeyStart: keyStart, KeyEnd: keyEnd, ValStart: valStart, ValEnd: end})
		}
		return end, err
	})
	if err != nil {
		return nil, err
	}
	return dst, nil
}

package jsonscan

import (
	"bytes"
	"strconv"
)

// Scanner walks one JSON document. In validating mode every byte it passes
// is checked against RFC 8259 (strings must also be valid UTF-8); in trusted
// mode it only finds where values end, which lets
// strings be skipped with a vectorised search for the closing quote. Either
// way it never decodes a value: ordinary content is only skipped.
type Scanner struct {
	B       []byte // the document
	Trusted bool   // B is known to be valid JSON: only find where values end
	// Long, in trusted mode, are the long strings of the validated
	// document B is part of: each is stepped over without a search.
	Long   Spans
	longAt lookup // the last look-up in Long
	// Plain is set by Str: the string it skipped was printable ASCII
	// without escapes, so its value is its bytes (a trusted scan sets it
	// only for a string Long records as plain).
	Plain bool
	stack []byte // closing brackets of the containers Value is inside
	tmp   []byte // scratch for decoding escaped keys and short values
	// split, during a validating scan of a large document, is the second
	// half that another goroutine validates (see split).
	split *split
}

// SyntaxError is a byte of the document where it stops being JSON.
type SyntaxError struct{ Offset int }

func (e *SyntaxError) Error() string {
	return "not valid JSON at byte " + strconv.Itoa(e.Offset)
}

func syntaxError(off int) error { return &SyntaxError{Offset: off} }

// WS returns the index of the first non-whitespace byte at or after i.
func (s *Scanner) WS(i int) int {
	for i < len(s.B) {
		switch s.B[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// num skips the number starting at i.
func (s *Scanner) num(i int) (int, error) {
	b := s.B
	if s.Trusted {
		for i < len(b) && (b[i] == '-' || b[i] == '+' || b[i] == '.' || b[i] == 'e' || b[i] == 'E' || '0' <= b[i] && b[i] <= '9') {
			i++
		}
		return i, nil
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, syntaxError(i)
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, syntaxError(j)
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, syntaxError(j)
		}
		i = j
	}
	return i, nil
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// lit skips one of the literals true, false and null.
func (s *Scanner) lit(i int) (int, error) {
	for _, w := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(s.B[i:], []byte(w)) {
			return i + len(w), nil
		}
	}
	return 0, syntaxError(i)
}

// Key skips the member name at i (which must be a string), the colon and
// the whitespace around it, returning the name's end and the value start.
func (s *Scanner) Key(i int) (keyEnd, valStart int, err error) {
	if i >= len(s.B) || s.B[i] != '"' {
		return 0, 0, syntaxError(i)
	}
	if keyEnd, err = s.Str(i); err != nil {
		return 0, 0, err
	}
	i = s.WS(keyEnd)
	if i >= len(s.B) || s.B[i] != ':' {
		return 0, 0, syntaxError(i)
	}
	return keyEnd, s.WS(i + 1), nil
}

// Value skips the value starting at i (a non-whitespace byte) and returns
// the index just past it. It keeps its own bracket stack instead of
// recursing, so arbitrarily deep nesting cannot exhaust the goroutine stack.
func (s *Scanner) Value(i int) (int, error) {
	b := s.B
	stack := s.stack[:0]
	defer func() { s.stack = stack[:0] }()
	var err error
	for {
		if i >= len(b) {
			return 0, syntaxError(i)
		}
		stepped := false // over the run of elements another goroutine validated
		if s.split != nil && i >= s.split.at {
			next := s.meet(i, len(stack) > 0 && stack[len(stack)-1] == ']')
			i, stepped = next, next != i
		}
		if !stepped {
			switch c := b[i]; {
			case c == '{' || c == '[':
				closer := byte('}')
				if c == '[' {
					closer = ']'
				}
				i = s.WS(i + 1)
				if i < len(b) && b[i] == closer {
					i++
					break
				}
				stack = append(stack, closer)
				if closer == '}' {
					if _, i, err = s.Key(i); err != nil {
						return 0, err
					}
				}
				continue
			case c == '"':
				i, err = s.Str(i)
			case c == '-' || '0' <= c && c <= '9':
				i, err = s.num(i)
			default:
				i, err = s.lit(i)
			}
			if err != nil {
				return 0, err
			}
		}
		// After a complete value: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = s.WS(i)
			if i >= len(b) {
				return 0, syntaxError(i)
			}
			top := stack[len(stack)-1]
			if b[i] == top {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return 0, syntaxError(i)
			}
			i = s.WS(i + 1)
			if top == '}' {
				if _, i, err = s.Key(i); err != nil {
					return 0, err
				}
			}
			break
		}
	}
}

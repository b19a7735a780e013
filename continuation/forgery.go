package continuation

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Only the runtime writes the <session_continuation> lineage block. Text
// from anywhere else — what the model wrote in continue_session, a cited
// tool result, a fetched page — may try to imitate it in ways a reader
// (person or model) does not see: a zero-width space or soft hyphen inside
// the name, a Cyrillic ѕ, fullwidth ＜＞, an HTML entity. Detection
// therefore runs on a folded copy of the text: format characters and
// combining marks dropped, NFKC compatibility folding (fullwidth and
// mathematical letters), lower case, the common confusables of the tag's
// letters and brackets mapped to ASCII, and HTML character references and
// JSON \u escapes decoded.
// A match in the folded copy is mapped back to the original bytes.
var lineageTag = regexp.MustCompile(`<\s*/?\s*session_continuation`)

// confusables maps look-alikes of the characters the tag is made of to
// them. NFKC already folds fullwidth forms, small form variants and
// mathematical alphanumerics; these are the ones it leaves alone.
var confusables = map[rune]rune{
	'ѕ': 's', 'ꜱ': 's', 'ʂ': 's',
	'е': 'e', 'ҽ': 'e', 'ᴇ': 'e', 'ɛ': 'e',
	'і': 'i', 'ı': 'i', 'ι': 'i', 'ӏ': 'i', 'ɩ': 'i', 'ɪ': 'i',
	'о': 'o', 'ο': 'o', 'ᴏ': 'o', 'օ': 'o', 'ѻ': 'o',
	'ո': 'n', 'ռ': 'n', 'ɴ': 'n', 'п': 'n',
	'с': 'c', 'ϲ': 'c', 'ᴄ': 'c',
	'т': 't', 'ᴛ': 't', 'τ': 't',
	'υ': 'u', 'ս': 'u', 'ᴜ': 'u',
	'а': 'a', 'ɑ': 'a', 'α': 'a', 'ᴀ': 'a',
	'‗': '_', 'ˍ': '_',
	'‹': '<', '〈': '<', '⟨': '<', 'ᐸ': '<', '˂': '<', '≺': '<',
	'›': '>', '〉': '>', '⟩': '>', 'ᐳ': '>', '˃': '>', '≻': '>',
	'∕': '/', '⁄': '/', '⧸': '/',
}

// namedRefs are the HTML character references that spell the tag.
var namedRefs = map[string]rune{"lt": '<', "gt": '>', "sol": '/', "lowbar": '_', "amp": '&', "nbsp": ' '}

// foldedUnit is one byte of the folded text and the original bytes
// [start, end) it came from.
type foldedUnit struct{ start, end int }

// fold returns the folded copy of s and, for each of its bytes, where in s
// it came from.
func fold(s string) (string, []foldedUnit) {
	var b strings.Builder
	var units []foldedUnit
	emit := func(r rune, start, end int) {
		if unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 'ㅤ' || r == 'ᅟ' || r == 'ᅠ' {
			return // invisible: zero-width, soft hyphen, joiners, combining marks, fillers
		}
		for _, f := range norm.NFKC.String(string(unicode.ToLower(r))) {
			f = unicode.ToLower(f)
			if c, ok := confusables[f]; ok {
				f = c
			}
			n := b.Len()
			b.WriteRune(f)
			for ; n < b.Len(); n++ {
				units = append(units, foldedUnit{start, end})
			}
		}
	}
	for i := 0; i < len(s); {
		if s[i] == '\\' {
			if r, n, ok := jsonEscape(s[i:]); ok {
				emit(r, i, i+n)
				i += n
				continue
			}
		}
		if s[i] == '&' {
			if r, n, ok := charRef(s[i:]); ok {
				emit(r, i, i+n)
				i += n
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		emit(r, i, i+n)
		i += n
	}
	return b.String(), units
}

// charRef decodes an HTML character reference at the start of s: &lt;,
// &#60;, &#x3c; and the named ones the tag can be spelled with.
func charRef(s string) (rune, int, bool) {
	end := strings.IndexByte(s, ';')
	if end < 2 || end > 10 {
		return 0, 0, false
	}
	body := s[1:end]
	if body[0] == '#' {
		base, digits := 10, body[1:]
		if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
			base, digits = 16, digits[1:]
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil || v > unicode.MaxRune {
			return 0, 0, false
		}
		return rune(v), end + 1, true
	}
	if r, ok := namedRefs[strings.ToLower(body)]; ok {
		return r, end + 1, true
	}
	return 0, 0, false
}

// jsonEscape decodes a JSON \uXXXX escape (a surrogate pair as one
// character) or \/ at the start of s: exact source events are rendered as
// their JSON bytes, where \u003c reads as < to the model.
func jsonEscape(s string) (rune, int, bool) {
	if strings.HasPrefix(s, `\/`) {
		return '/', 2, true
	}
	if len(s) < 6 || s[1] != 'u' {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[2:6], 16, 32)
	if err != nil {
		return 0, 0, false
	}
	r := rune(v)
	if utf16.IsSurrogate(r) && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		if lo, err := strconv.ParseUint(s[8:12], 16, 32); err == nil {
			if c := utf16.DecodeRune(r, rune(lo)); c != utf8.RuneError {
				return c, 12, true
			}
		}
	}
	return r, 6, true
}

// forgedLineage returns the byte ranges of s that open or close something
// that reads as a <session_continuation> element once folded.
func forgedLineage(s string) [][2]int {
	if s == "" {
		return nil
	}
	folded, units := fold(s)
	var out [][2]int
	for _, m := range lineageTag.FindAllStringIndex(folded, -1) {
		out = append(out, [2]int{units[m[0]].start, units[m[1]-1].end})
	}
	return out
}

// neutraliseLineage rewrites every look-alike of the lineage tag in s so
// that it no longer opens or closes an element: the bracket and name
// become "[quoted session_continuation" (or "[quoted /…" for a closing
// tag). Everything else in s is kept as it was. Cited sources and
// model-written text pass through it before they enter the host-ready
// system text, so the only lineage block there is the runtime's.
func neutraliseLineage(s string) string {
	spans := forgedLineage(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		folded, _ := fold(s[sp[0]:sp[1]])
		b.WriteString("[quoted ")
		if strings.Contains(folded, "/") {
			b.WriteByte('/')
		}
		b.WriteString("session_continuation")
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

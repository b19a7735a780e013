package boundary

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The seed's positive-state rule: text such as "ignore the old error" keeps
// the old error resident and makes the model invert it on every turn. A
// reseed therefore never carries a negated residue phrase; it states what is
// true now (kept from the same sentence when a positive clause is there) or
// drops the phrase.

// residueNouns are the things a negation may try to make the model forget.
const residueNouns = `(?:errors?|failures?|failing|failed|fails?|exceptions?|crash(?:es)?|panics?|tracebacks?|stack ?traces?|warnings?|breakage)`

// residuePatterns detect a negated residue phrase inside one clause.
var residuePatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(?:ignore|ignoring|disregard|disregarding|forget(?: about)?|never mind|overlook|pay no attention to|(?:don'?t|do not|no need to) (?:worry|care) about)\b[^.;:!?\n]{0,80}?\b` + residueNouns + `\b`),
	regexp.MustCompile(`(?i)\bno longer\b[^.;:!?\n]{0,60}?(?:\b` + residueNouns + `\b|\brelevant\b|\ban issue\b|\ba problem\b|\bmatters?\b)`),
	regexp.MustCompile(`(?i)\b` + residueNouns + `\b[^.;:!?\n]{0,60}?\bno longer\b`),
}

// clauseSplit separates the clauses of one sentence.
var clauseSplit = regexp.MustCompile(`,\s*|\s+—\s+|\s+-\s+|\s+but\s+`)

// backReference starts a clause that only points back at the dropped
// residue ("it was flaky"); such a clause is dropped with it.
var backReference = regexp.MustCompile(`(?i)^(?:it|that|this|these|those|they|which)\b`)

// HasNegatedResidue reports whether s contains a negated residue phrase.
func HasNegatedResidue(s string) bool {
	for _, re := range residuePatterns {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// RewritePositive returns s without negated residue: sentences without it
// are kept byte for byte; a sentence with it keeps only its other clauses
// (for example "Ignore the old error, the build passes now." becomes "The
// build passes now."), or disappears when nothing positive is left, together
// with a following sentence that only refers back to it ("It was flaky.").
func RewritePositive(s string) (string, bool) {
	if !HasNegatedResidue(s) {
		return s, false
	}
	var b strings.Builder
	afterResidue := false
	for _, sent := range sentences(s) {
		if !HasNegatedResidue(sent) {
			// A sentence that only points back at dropped residue goes too.
			if !(afterResidue && backReference.MatchString(strings.TrimSpace(sent))) {
				b.WriteString(sent)
				afterResidue = false
			}
			continue
		}
		afterResidue = true
		if kept := positiveClauses(sent); kept != "" {
			if b.Len() > 0 && !endsInSpace(b.String()) {
				b.WriteByte(' ')
			}
			b.WriteString(kept)
			b.WriteByte(' ')
		}
	}
	out := strings.TrimSpace(b.String())
	if HasNegatedResidue(out) {
		// Joining kept sentences formed a new residue phrase; drop its sentences.
		var kept []string
		for _, sent := range sentences(out) {
			if !HasNegatedResidue(sent) {
				kept = append(kept, sent)
			}
		}
		out = strings.TrimSpace(strings.Join(kept, ""))
	}
	return out, true
}

// positiveClauses keeps the clauses of sent that carry no residue and do not
// refer back to it, as one sentence ending in a full stop.
func positiveClauses(sent string) string {
	body := strings.TrimRight(strings.TrimSpace(sent), ".!?;")
	var kept []string
	for _, c := range clauseSplit.Split(body, -1) {
		c = strings.TrimSpace(c)
		if c == "" || HasNegatedResidue(c) || backReference.MatchString(c) {
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == 0 {
		return ""
	}
	out := strings.Join(kept, ", ")
	if HasNegatedResidue(out) {
		return "" // the clauses only read as residue together
	}
	r, n := utf8.DecodeRuneInString(out)
	return string(unicode.ToUpper(r)) + out[n:] + "."
}

// sentences splits s after runs of sentence terminators (and after line
// breaks), keeping every byte, so unchanged sentences are copied exactly.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '!' && c != '?' && c != ';' && c != '\n' {
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte(".!?;", s[j]) >= 0 {
			j++
		}
		if c != '\n' && j < len(s) && !isSpace(s[j]) {
			continue // "e.g.x", "1.5": not a sentence end
		}
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		out = append(out, s[start:j])
		start, i = j, j-1
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func endsInSpace(s string) bool { return s != "" && isSpace(s[len(s)-1]) }

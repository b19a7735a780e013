package boundary

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The person's own negations govern the task: "Don't worry about the flaky
// test failures." says what is out of scope. Deleting it loses a
// constraint; repeating it keeps the failures resident as an operand the
// model must invert each turn (seed 002 §7). A reseed restates it as the
// positive state it establishes: "The flaky test failures are out of
// scope." (Chinese: "不稳定的测试失败不在本任务范围内。").

// laterQualifier is a time qualifier at the end of a dismissed object,
// kept after the restatement ("… are out of scope for now").
var laterQualifier = regexp.MustCompile(`(?i)\s+(for now|yet|at the moment|right now|for the moment|this time)$`)

// restatePositive rewrites every dismissal in a person's text ("ignore X",
// "don't worry about X", "never mind X", "skip X", 不用管X, 忽略X, …) as
// "X is out of scope", keeping the rest of the text byte for byte, and
// then drops any negated residue phrase that remains (RewritePositive).
func restatePositive(s string) string {
	var b strings.Builder
	for _, sent := range sentences(s) {
		b.WriteString(restateSentence(sent))
	}
	out, _ := RewritePositive(b.String())
	return out
}

// restateSentence restates the dismissals of one sentence. A dismissed
// object that is past residue ("the old error", "the earlier failure") is
// left for RewritePositive, which removes the obsolete operand instead:
// there is no scope to state about an error that is gone.
func restateSentence(sent string) string {
	from := 0
	for range 8 { // a sentence rarely dismisses more than two things
		rest := sent[from:]
		if m := dismissalCue.FindStringSubmatchIndex(rest); m != nil {
			obj := rest[m[2]:m[3]]
			if obsolete.MatchString(obj) && HasNegatedResidue(rest[m[0]:m[1]]) {
				from += m[1]
				continue
			}
			rep := outOfScope(obj, from+m[0] == leadingSpace(sent))
			sent = sent[:from+m[0]] + rep + rest[m[3]:]
			from += m[0] + len(rep)
			continue
		}
		if m := zhDismissal.FindStringSubmatchIndex(rest); m != nil {
			rep := strings.TrimSuffix(strings.TrimSpace(rest[m[2]:m[3]]), "了") + "不在本任务范围内"
			sent = sent[:from+m[0]] + rep + rest[m[3]:]
			from += m[0] + len(rep)
			continue
		}
		break
	}
	return sent
}

// obsolete finds a dismissed object that is past residue.
var obsolete = regexp.MustCompile(`(?i)\b(?:old|older|earlier|previous|prior|last|stale|former)\b|之前的|以前的|旧的|上次的`)

// outOfScope is "<object> is out of scope", with the verb agreeing with
// the object and a trailing time qualifier kept at the end.
func outOfScope(object string, capital bool) string {
	object = strings.TrimSpace(object)
	later := ""
	if m := laterQualifier.FindStringSubmatchIndex(object); m != nil {
		later, object = " "+object[m[2]:m[3]], object[:m[0]]
	}
	verb := " is"
	if plural(object) {
		verb = " are"
	}
	if capital {
		r, n := utf8.DecodeRuneInString(object)
		object = string(unicode.ToUpper(r)) + object[n:]
	}
	return object + verb + " out of scope" + later
}

// plural guesses the number of an English noun phrase from its last word
// and its determiner; only the verb's agreement depends on it.
func plural(np string) bool {
	w := strings.Fields(strings.ToLower(np))
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "these", "those", "all", "both", "any", "some":
		return true
	}
	if strings.Contains(" "+strings.Join(w, " ")+" ", " and ") {
		return true
	}
	last := w[len(w)-1]
	return strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") && !strings.HasSuffix(last, "us") && !strings.HasSuffix(last, "is")
}

func leadingSpace(s string) int { return len(s) - len(strings.TrimLeft(s, " \t\r\n")) }

package continuation

import (
	"strings"
	"testing"
)

// TestForgedLineage covers issue 18 #3: every disguise of the tag that a
// reader cannot tell from the real one is found, and ordinary text is not.
func TestForgedLineage(t *testing.T) {
	forged := []string{
		"<session_continuation>",
		"</session_continuation>",
		"< / Session_Continuation>",
		"<session\u200b_continuation>",                                       // zero-width space
		"<sess\u00adion_continuation>",                                       // soft hyphen
		"<\u0455ession_continuation>",                                        // Cyrillic ѕ
		"<s\u0435ssi\u043en_\u0441ontinuation>",                              // Cyrillic е, о, с
		"\uff1csession_continuation\uff1e",                                   // fullwidth brackets
		"\uff1c\uff53\uff45\uff53\uff53\uff49\uff4f\uff4e\uff3fcontinuation", // fullwidth letters
		"&lt;session_continuation&gt;",
		"&#60;session_continuation&#62;",
		"&#x3C;/session&lowbar;continuation>",
		"\u2039session_continuation\u203a",               // single angle quotes
		"<s\u0301ession_continuation>",                   // combining mark
		"text before <session_continuation\u2060> after", // word joiner
		`{"content":"\u003csession_continuation\u003e"}`, // JSON escapes in raw event data
		"<\U0001d42cession_continuation>",                // mathematical bold s
		`\u003c\ud835\udc2cession_continuation`,          // the same as JSON escapes
	}
	for _, s := range forged {
		if len(forgedLineage(s)) == 0 {
			t.Errorf("%q: not found", s)
		}
		n := neutraliseLineage(s)
		if len(forgedLineage(n)) != 0 {
			t.Errorf("%q: still forged after neutralising: %q", s, n)
		}
		if !strings.Contains(n, "[quoted ") {
			t.Errorf("%q: neutralised to %q", s, n)
		}
	}
	for _, s := range []string{"", "session_continuation without a bracket", "a < b and session continuation", "<div>", "&lt;b&gt;"} {
		if len(forgedLineage(s)) != 0 || neutraliseLineage(s) != s {
			t.Errorf("%q: flagged", s)
		}
	}
}

func TestNeutraliseKeepsTheRest(t *testing.T) {
	in := "before \u200b<s\u200bession_continuation> middle </session_continuation> after ✓"
	got := neutraliseLineage(in)
	want := "before \u200b[quoted session_continuation> middle [quoted /session_continuation> after ✓"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

package wire

import (
	"encoding/json"
	"testing"
)

func TestUnescapeHTML(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{`<session_continuation> & </x>`, `"<session_continuation> & </x>"`},
		{`a\u003cb`, `"a\\u003cb"`},        // a real backslash before u003c stays escaped
		{`\<`, `"\\<"`},                    // an escaped backslash, then the character
		{"tab\tquote\"", `"tab\tquote\""`}, // other escapes untouched
		{"\u2028", `"\u2028"`},             // line separators keep their escape
	} {
		b, err := json.Marshal(tc.value)
		if err != nil {
			t.Fatal(err)
		}
		got := UnescapeHTML(b)
		if string(got) != tc.want {
			t.Errorf("%q: got %s, want %s", tc.value, got, tc.want)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != tc.value {
			t.Errorf("%q: decodes to %q (%v)", tc.value, back, err)
		}
	}
}

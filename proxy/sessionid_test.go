package proxy

import (
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/settings"
)

// TestSessionID: a key the settings store accepts is kept; any other is
// its digest, which the store accepts, of fixed length, different per key.
func TestSessionID(t *testing.T) {
	for _, ok := range []string{"", "ses_123", "019a-thread", strings.Repeat("é", 256)} {
		if got := SessionID(ok); got != ok {
			t.Errorf("SessionID(%.20q) = %.20q, want it kept", ok, got)
		}
	}
	seen := map[string]bool{}
	for _, odd := range []string{strings.Repeat("x", 257), "a\r\nb", "a\x00", "zero\u200bwidth", "\xff\xfe", strings.Repeat("k", 8<<20)} {
		got := SessionID(odd)
		if !strings.HasPrefix(got, DigestPrefix) || len(got) != len(DigestPrefix)+32 || settings.ValidSessionID(got) != nil || seen[got] {
			t.Errorf("SessionID(%.20q) = %q", odd, got)
		}
		seen[got] = true
		if SessionID(odd) != got {
			t.Errorf("SessionID(%.20q) is not stable", odd)
		}
	}
}

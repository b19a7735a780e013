package jsonscan

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestThreeByteFastPath aims at strBody's one-load test of three-byte
// UTF-8 sequences: every lead byte E0-EF (E0 and ED narrow the second
// byte: overlongs and surrogates) with second and third bytes at and
// around the continuation range's edges, at every offset of a word, then
// followed by what ends a run (ASCII, a quote, an escape), continues it
// (another sequence, a stray continuation byte) or nothing (the document,
// and so the four-byte load, ends there). Each document is compared with
// the reference by every scan, fed whole and cut at every byte.
func TestThreeByteFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	edges := []byte{0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xE3}
	after := []string{"", "a", `"`, `\n`, "漢", "\x80", "\xed\xa0\x80", "\xe0\x80\x80"}
	for lead := 0xE0; lead <= 0xEF; lead++ {
		for _, c1 := range edges {
			for _, c2 := range edges {
				seq := string([]byte{byte(lead), c1, c2})
				for at := range 9 {
					pre := strings.Repeat("x", at)
					for _, a := range after {
						sameAsReference(t, rng, []byte(`{"k":"`+pre+seq+a+`"}`))
						// The sequence at the document's end: b holds
						// fewer than four bytes from its lead.
						sameAsReference(t, rng, []byte(`{"k":"`+pre+seq+a))
					}
				}
			}
		}
	}
}

// TestThreeByteRuns: runs of valid three-byte sequences (CJK, dashes,
// quotes, the range's edges U+0800, U+D7FF, U+E000, U+FFFF) with one
// invalid or cut sequence at every position of the run, so the fast path's
// run ends at each byte of a word boundary.
func TestThreeByteRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	valid := []string{"日", "本", "—", "“", "✓", "\u0800", "\ud7ff", "\ue000", "\uffff"}
	bad := []string{"\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xe6\xbc", "\xe6", "\xe6\xbc\xc0", "\xe6\x7f\x80",
		"\xe6\x80\x7f", "\xef\xbf", "\x80\x80\x80", "\xc0\xaf", "😀", "é"}
	for n := 1; n <= 8; n++ {
		for k := 0; k <= n; k++ {
			for _, x := range bad {
				for at := range 8 {
					var sb strings.Builder
					sb.WriteString(strings.Repeat("y", at))
					for j := range n {
						if j == k {
							sb.WriteString(x)
						}
						sb.WriteString(valid[rng.IntN(len(valid))])
					}
					if k == n {
						sb.WriteString(x)
					}
					s := sb.String()
					sameAsReference(t, rng, []byte(`{"k":"`+s+`","m":1}`))
					sameAsReference(t, rng, []byte(`{"k":"`+s))
				}
			}
		}
	}
}

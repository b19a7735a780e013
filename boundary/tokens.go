package boundary

import "unicode/utf8"

// EstimateTokens is the package's token measure: one token per four
// characters, rounded up. It is deliberately model-independent; every
// decision compares two such estimates, so a consistent measure matters more
// than an exact tokenizer.
func EstimateTokens(s string) int {
	return tokensForChars(utf8.RuneCountInString(s))
}

// tokensForChars is EstimateTokens for a known character (or byte) count,
// used for tool outputs whose text is measured but not kept.
func tokensForChars(n int) int {
	if n <= 0 {
		return 0
	}
	return (n + 3) / 4
}

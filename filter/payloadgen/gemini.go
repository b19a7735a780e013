package payloadgen

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// GeminiHistory is a Gemini CLI request body (generateContent) of about
// size bytes: the first content, then turns of a signed function call, its
// response (most of the bytes, as tool output is in real histories) and a
// signed text answer, each followed by the user's next message. bench's
// Gemini rows and the proxy's Gemini benchmarks send it.
func GeminiHistory(size int) []byte {
	var b strings.Builder
	b.Grow(size + 4096)
	b.WriteString(`{"contents":[{"role":"user","parts":[{"text":"<session_context>\nThis is the Gemini CLI.\n</session_context>"},{"text":"look at the project"}]}`)
	sig := func(n int) string {
		return base64.StdEncoding.EncodeToString([]byte(strings.Repeat(fmt.Sprintf("signature %d ", n), 40)))
	}
	output := strings.Repeat("line of tool output \\\"quoted\\\" and ünïcode\\n", 400)
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, `,{"role":"model","parts":[{"functionCall":{"id":"read_file_%d","name":"read_file","args":{"file_path":"src/f%d.go"}},"thoughtSignature":%q}]}`, n, n, sig(2*n))
		fmt.Fprintf(&b, `,{"role":"user","parts":[{"functionResponse":{"id":"read_file_%d","name":"read_file","response":{"output":"%s"}}}]}`, n, output)
		fmt.Fprintf(&b, `,{"role":"model","parts":[{"text":"Read f%d.","thoughtSignature":%q}]},{"role":"user","parts":[{"text":"next %d"}]}`, n, sig(2*n+1), n)
	}
	b.WriteString(`],"generationConfig":{"temperature":1,"thinkingConfig":{"includeThoughts":true}}}`)
	return []byte(b.String())
}

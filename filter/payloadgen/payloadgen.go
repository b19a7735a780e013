// Package payloadgen makes realistic OpenAI Responses request bodies for
// tests and benchmarks of the payload filter (docs/suppliers.md §1): pi-ai style
// compact JSON with a developer message, a user message carrying a data-URL
// image, and tool-calling steps of reasoning (Fernet-like base64url
// ciphertext and summary parts), function calls with fc_/call_ ids, tool
// outputs full of escapes and non-ASCII text, and assistant messages.
//
// Generation is deterministic for a Spec, so a benchmark and its reference
// measurements see identical bytes. The `continuity bench` command reuses it.
package payloadgen

import (
	"encoding/base64"
	"math/rand/v2"
	"strconv"
)

// Spec describes a payload to generate.
type Spec struct {
	Seed uint64
	// Size is the target size in bytes; steps are added until it is reached
	// (and at least until Reasoning items were placed).
	Size int
	// Reasoning is the number of reasoning items; each tool step gets one
	// until they run out.
	Reasoning int
	// CipherBytes is the length of each encrypted_content value; 0 derives
	// it so the reasoning items fill about 97% of Size.
	CipherBytes int
	// SummaryParts is the number of summary_text parts per reasoning item.
	SummaryParts int
	// ToolOutputBytes is the approximate length of each tool output.
	ToolOutputBytes int
	// ImageBytes is the approximate length of the data-URL image in the
	// first user message and of one more image every eighth step (0: none).
	ImageBytes int
}

// ReasoningHeavy is a payload of size bytes that is mostly n reasoning
// items: the filter's worst case for hashing.
func ReasoningHeavy(size, n int) Spec {
	return Spec{Seed: 1, Size: size, Reasoning: n, SummaryParts: 2, ToolOutputBytes: 64}
}

// Ordinary is a payload of size bytes without reasoning: long tool outputs
// and images that the filter must skip without decoding.
func Ordinary(size int) Spec {
	return Spec{Seed: 2, Size: size, ToolOutputBytes: 256 << 10, ImageBytes: 512 << 10}
}

// Typical is a payload like a real agent turn: a screenshot, a handful of
// tool steps with reasoning of tens of KiB and outputs of a few KiB.
func Typical(size int) Spec {
	return Spec{Seed: 3, Size: size, Reasoning: size / (96 << 10), CipherBytes: 24 << 10,
		SummaryParts: 3, ToolOutputBytes: 12 << 10, ImageBytes: 192 << 10}
}

// Payload is a generated body and where its ciphertexts are.
type Payload struct {
	Body []byte
	// Ciphers holds, for each reasoning item in order, the byte range of
	// its encrypted_content string content (without quotes) in Body.
	Ciphers [][2]int
}

// CipherBytes is the total length of all ciphertexts.
func (p Payload) CipherBytes() int {
	n := 0
	for _, c := range p.Ciphers {
		n += c[1] - c[0]
	}
	return n
}

// Generate builds the payload described by s.
func Generate(s Spec) Payload {
	g := &gen{s: s, rng: rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15))}
	if g.s.SummaryParts == 0 {
		g.s.SummaryParts = 1
	}
	if g.s.CipherBytes == 0 && s.Reasoning > 0 {
		g.s.CipherBytes = max(64, s.Size*97/100/s.Reasoning-600-s.ToolOutputBytes)
	}
	g.b = make([]byte, 0, s.Size+s.Size/16+4096)
	g.raw(`{"model":"gpt-5.4","input":[{"role":"developer","content":"You are a careful coding agent."}`)
	g.raw(`,{"role":"user","content":[{"type":"input_text","text":"Look at this screenshot of the failing build"}`)
	if s.ImageBytes > 0 {
		g.image()
	}
	g.raw(`]}`)
	for step := 1; len(g.b) < s.Size-256 || g.placed < s.Reasoning; step++ {
		g.step(step)
	}
	g.raw(`],"stream":true,"store":false,"tools":[{"type":"function","name":"read_file","description":"Read a file",` +
		`"parameters":{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}},"strict":false}],` +
		`"reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"]}`)
	return Payload{Body: g.b, Ciphers: g.ciphers}
}

type gen struct {
	s       Spec
	rng     *rand.Rand
	b       []byte
	placed  int
	ciphers [][2]int
}

func (g *gen) raw(s string) { g.b = append(g.b, s...) }

// step appends one tool step: reasoning (while any remain), a function call
// and its output, and every fourth step an assistant answer and a new user
// message.
func (g *gen) step(n int) {
	id := strconv.Itoa(n)
	if g.placed < g.s.Reasoning {
		g.placed++
		g.raw(`,{"type":"reasoning","id":"rs_` + id + `","summary":[`)
		for p := 0; p < g.s.SummaryParts; p++ {
			if p > 0 {
				g.raw(",")
			}
			g.raw(`{"type":"summary_text","text":"**Step ` + id + `.` + strconv.Itoa(p) + `**\n\nChecking the parser` +
				` for the off-by-one the log shows — \"len(s) - 1\" drops the last rune.`)
			g.raw(`"}`)
		}
		g.raw(`],"encrypted_content":"`)
		g.cipher()
		g.raw(`"}`)
	}
	g.raw(`,{"type":"function_call","id":"fc_` + id + `","call_id":"call_` + id +
		`","name":"read_file","arguments":"{\"path\":\"pkg/parser` + id + `.go\"}"}`)
	g.raw(`,{"type":"function_call_output","call_id":"call_` + id + `","output":"`)
	g.text(g.s.ToolOutputBytes)
	g.raw(`"}`)
	if n%4 == 0 {
		g.raw(`,{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Answer ` + id +
			` — fixed ✓ the parser now keeps the last rune.","annotations":[]}],"status":"completed","id":"msg_` + id +
			`","phase":"final_answer"},{"role":"user","content":[{"type":"input_text","text":"Now run the tests"}`)
		if g.s.ImageBytes > 0 && n%8 == 0 {
			g.image()
		}
		g.raw(`]}`)
	}
}

// cipher appends a Fernet-like token: "gAAAAAB" and base64url of random
// bytes, CipherBytes long in all.
func (g *gen) cipher() {
	start := len(g.b)
	g.raw("gAAAAAB")
	n := max(0, g.s.CipherBytes-7)
	g.b = appendBase64(g.b, base64.RawURLEncoding, g.random(n*3/4+3))[:start+7+n]
	g.ciphers = append(g.ciphers, [2]int{start, len(g.b)})
}

// image appends an input_image part with a PNG data URL.
func (g *gen) image() {
	g.raw(`,{"type":"input_image","detail":"auto","image_url":"data:image/png;base64,`)
	g.b = appendBase64(g.b, base64.StdEncoding, g.random(g.s.ImageBytes*3/4))
	g.raw(`"}`)
}

func (g *gen) random(n int) []byte {
	r := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := g.rng.Uint64()
		for k := range 8 {
			r[i+k] = byte(v >> (8 * k))
		}
	}
	return r
}

func appendBase64(dst []byte, enc *base64.Encoding, src []byte) []byte {
	return enc.AppendEncode(dst, src)
}

// lines are the raw (unescaped) text tool outputs are made of: code with
// quotes, tabs, backslashes and non-ASCII, as real file reads have.
var lines = []string{
	"package parser\n",
	"// Parse returns the rune count of s; see “Unicode” notes — ok ✓\n",
	"func Parse(s string) int {\n",
	"\tif s == \"\" {\n\t\treturn 0\n\t}\n",
	"\treturn utf8.RuneCountInString(s) - 1 // bug: drops the last rune\n",
	"}\n",
	"var pattern = regexp.MustCompile(`\\d+\\.\\d+`) // matches \"1.5\"\n",
	"\t// 日本語のコメント: 境界条件を確認する\n",
	"\tlog.Printf(\"parsed %q in %v\\n\", s, time.Since(start))\n",
}

// text appends about n bytes of JSON-escaped tool output.
func (g *gen) text(n int) {
	end := len(g.b) + n
	for len(g.b) < end {
		g.b = appendEscaped(g.b, lines[g.rng.IntN(len(lines))])
	}
}

// appendEscaped appends s escaped as JSON.stringify would.
func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

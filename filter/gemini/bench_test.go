package gemini

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchBody is a gemini-cli-like history of about size bytes: signed
// calls, large function responses, signed answers.
func benchBody(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"contents":[{"role":"user","parts":[{"text":"<session_context>"},{"text":"go"}]}`)
	out := strings.Repeat(`line of tool output \"quoted\" and ünïcode\n`, 400)
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, `,{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{"p":"f%d"}},"thoughtSignature":"%s"}]}`, n, strings.Repeat("QUJD", 200))
		fmt.Fprintf(&b, `,{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":"%s"}}}]}`, out)
		fmt.Fprintf(&b, `,{"role":"model","parts":[{"text":"ok","thoughtSignature":"%s"}]},{"role":"user","parts":[{"text":"next"}]}`, strings.Repeat("REVG", 200))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkFilter: Scan and Select of a 1 and a 16 MiB history, every
// signature removed (the most work the filter does).
func BenchmarkFilter(b *testing.B) {
	for _, size := range []int{1 << 20, 16 << 20} {
		body := benchBody(size)
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				d, err := Scan(body)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := d.Select(context.Background(), func(Candidate) bool { return false }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

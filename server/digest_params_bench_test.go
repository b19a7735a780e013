package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// benchDigestParams are the params the pi extension sends for a history
// of turns tool turns (four items each, as bench/latency.ts builds them:
// 65 turns is its 1 MiB body).
func benchDigestParams(turns int) []byte {
	var items []string
	for n := 1; n <= turns; n++ {
		sum := sha256.Sum256([]byte(fmt.Sprint(n)))
		items = append(items, `{}`, `{"type":"reasoning","id":true,"sha256":"`+hex.EncodeToString(sum[:])+`","units":14007}`,
			`{"type":"function_call","id":true}`, `{"type":"function_call_output"}`)
	}
	return []byte(`{"requestId":"pi-1-2","sessionId":"s","turn":3,"step":1,"provider":"github-copilot","model":"gpt-5.4","purpose":"chat","items":[` +
		strings.Join(items, ",") + `]}`)
}

// BenchmarkDigestParams compares readDigestParams on canonical params
// with the schema walk and decode it avoids, on the same params in the
// same run, alternating, at the extension's 1 and 64 MiB bodies.
//
//	go test -run '^$' -bench DigestParams ./server/
func BenchmarkDigestParams(b *testing.B) {
	for _, turns := range []int{65, 4096} {
		raw := benchDigestParams(turns)
		b.Run(fmt.Sprintf("items=%d", 4*turns), func(b *testing.B) {
			var canonical, schema time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, _, err := readDigestParams(raw); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := uicontract.Validate(digestParamsSchema, raw); err != nil {
					b.Fatal(err)
				}
				if _, _, err := decodeDigestParams(raw); err != nil {
					b.Fatal(err)
				}
				canonical, schema = canonical+t1.Sub(t0), schema+time.Since(t1)
			}
			b.ReportMetric(float64(canonical)/float64(schema), "canonical/schema")
			b.ReportMetric(float64(canonical.Microseconds())/float64(b.N), "canonical-us/op")
		})
	}
}

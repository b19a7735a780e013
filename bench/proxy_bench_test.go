package bench

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"
)

// The proxy benchmarks run one side of a proxy row, so that a CPU profile
// shows where continuity's proxy spends what the plain ReverseProxy does
// not:
//
//	go test -run '^$' -bench ProxyStream -cpuprofile cpu.out ./bench

func benchPair(b testing.TB) *proxyPair {
	var long bytes.Buffer
	delta := `{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"` +
		strings.Repeat("x", 64) + `","logprobs":[]}`
	for long.Len() < 16<<20 {
		long.WriteString("event: response.output_text.delta\ndata: " + delta + "\n\n")
	}
	pair, err := startProxyPair(b.TempDir(), long.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pair.close)
	return pair
}

func BenchmarkProxyStream(b *testing.B) {
	pair := benchPair(b)
	body := []byte(`{"prompt_cache_key":"bench","input":[{"role":"user","content":"q"}]}`)
	for _, side := range []struct {
		name, path string
		s          *httptest.Server
	}{{"plain", "/v1/responses", pair.plain}, {"ours", "/v1/responses", pair.ours},
		// The same answer through continuity's proxy on a path it passes
		// through untouched (no filter, no tap): what the proxy costs
		// besides its tap.
		{"passthrough", "/v1/responses/long", pair.ours}} {
		b.Run(side.name, func(b *testing.B) {
			b.SetBytes(16 << 20)
			dropped := 0
			for b.Loop() {
				if _, err := pair.stream(side.s.URL, side.path, body, &dropped); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(dropped), "dropped")
		})
	}
}

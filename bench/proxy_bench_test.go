package bench

import (
	"bytes"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/filter/payloadgen"
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

// BenchmarkProxySessions is the concurrentRow case, one side at a time:
// 16 sessions each sending a typical 1 MiB body at once (an op is one
// such burst), through the plain ReverseProxy and through continuity's
// proxy. cpu-ms/req is the process's CPU time per request (clients and
// upstream included, the same on both sides), which on a shared machine
// compares the two better than the op's wall time:
//
//	go test -run '^$' -bench ProxySessions -cpuprofile cpu.out ./bench
func BenchmarkProxySessions(b *testing.B) {
	pair := benchPair(b)
	const sessions = 16
	gen := payloadgen.Generate(payloadgen.Typical(1 << 20)).Body
	bodies := make([][]byte, sessions)
	for i := range bodies {
		bodies[i] = append([]byte(`{"prompt_cache_key":"bench-session-`+strconv.Itoa(i)+`",`), gen[1:]...)
	}
	for _, side := range []struct {
		name string
		s    *httptest.Server
	}{{"plain", pair.plain}, {"ours", pair.ours}} {
		b.Run(side.name, func(b *testing.B) {
			b.SetBytes(int64(sessions * len(gen)))
			start := cpuTime()
			for b.Loop() {
				if _, err := together(sessions, func(i int) (time.Duration, error) {
					d, _, err := pair.post(side.s.URL, "/v1/responses", bodies[i])
					return d, err
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N*sessions), "cpu-ms/req")
		})
	}
}

package server_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/server"
)

// benchPipe drives Serve in this process over two pipes, so that a CPU
// profile of a benchmark shows the read loop, the dispatcher and the
// handlers under the pi extension's traffic.
type benchPipe struct {
	in  io.Writer
	out *bufio.Reader
	id  int
}

func startBenchPipe(b *testing.B) *benchPipe {
	inR, inW := io.Pipe()
	return serveBench(b, inR, inW)
}

// serveBench runs Serve reading the host's frames from inR (written to
// through inW) until the benchmark ends.
func serveBench(b *testing.B, inR io.ReadCloser, inW io.WriteCloser) *benchPipe {
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		server.Serve(context.Background(), server.Config{In: inR, Out: outW, DataDir: b.TempDir()})
		outW.Close()
		close(done)
	}()
	b.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // replies still being written
		<-done
		inR.Close()
	})
	return &benchPipe{in: inW, out: bufio.NewReader(outR)}
}

// call sends a request and returns its answer, skipping the plugin's
// notifications (it sends no requests to a host without capabilities).
func (p *benchPipe) call(b *testing.B, method, params string) (result, rpcErr json.RawMessage) {
	p.id++
	if _, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", p.id, method, params); err != nil {
		b.Fatal(err)
	}
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			b.Fatal(err)
		}
		if m.ID != nil && *m.ID == p.id {
			return m.Result, m.Error
		}
	}
}

func (p *benchPipe) event(b *testing.B, seq int, typ, data string) {
	hdr := fmt.Sprintf(`{"createdAt":%d,"isSeeded":false}`, time.Now().Add(time.Hour).UnixMilli())
	if _, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"s","event":{"type":%q,"seq":%d,"time":1,"data":%s},"header":%s}}`+"\n",
		typ, seq, data, hdr); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPayloadDigestPipe times llm/payloadDigest with the pi
// extension's params for its 1 MiB body (260 items), each a turn's first
// request in a session with the policy on, next to a request answered in
// the read loop (an unknown method) in the same run: digest/noop is what
// the handler adds to the round trip.
//
//	go test -run '^$' -bench PayloadDigestPipe -cpuprofile cpu.out ./server/
func BenchmarkPayloadDigestPipe(b *testing.B) {
	p := startBenchPipe(b)
	if _, e := p.call(b, "initialize", `{"protocolVersion":"1","host":{"name":"pi","version":"1"},"capabilities":{},"payloadProviders":["github-copilot"]}`); e != nil {
		b.Fatal(string(e))
	}
	var items []string
	for n := 1; n <= 65; n++ {
		sum := sha256.Sum256([]byte(fmt.Sprint(n)))
		items = append(items, `{}`, `{"type":"reasoning","id":true,"sha256":"`+hex.EncodeToString(sum[:])+`","units":14007}`,
			`{"type":"function_call","id":true}`, `{"type":"function_call_output"}`)
	}
	list := strings.Join(items, ",")
	seq := 0
	p.event(b, seq, "session/created", `{}`)
	var noop, digest time.Duration
	for turn := 1; b.Loop(); turn++ {
		p.event(b, seq+1, "turn/start", fmt.Sprintf(`{"turn":%d}`, turn))
		seq++
		rid := fmt.Sprintf("r%d", turn)
		res, e := p.call(b, "agent/request", fmt.Sprintf(`{"sessionId":"s","turn":%d,"step":1,"requestId":%q,"config":{"provider":"github-copilot","model":"m"}}`, turn, rid))
		if e != nil || !strings.Contains(string(res), `"enabled":true`) {
			b.Fatalf("admission %s %s", res, e)
		}
		t0 := time.Now()
		if _, e := p.call(b, "no/such/method", `{}`); e == nil {
			b.Fatal("an unknown method was answered")
		}
		t1 := time.Now()
		res, e = p.call(b, "llm/payloadDigest", fmt.Sprintf(`{"requestId":%q,"sessionId":"s","turn":%d,"step":1,"provider":"github-copilot","model":"m","purpose":"chat","items":[%s]}`, rid, turn, list))
		t2 := time.Now()
		if e != nil || !strings.Contains(string(res), `"filtered"`) {
			b.Fatalf("llm/payloadDigest %s %s", res, e)
		}
		noop, digest = noop+t1.Sub(t0), digest+t2.Sub(t1)
		p.event(b, seq+1, "turn/end", fmt.Sprintf(`{"turn":%d,"reason":{"kind":"completed"}}`, turn))
		seq++
	}
	b.ReportMetric(float64(digest)/float64(noop), "digest/noop")
	b.ReportMetric(float64(digest.Microseconds())/float64(b.N), "digest-us/op")
}

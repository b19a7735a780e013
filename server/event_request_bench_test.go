package server_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// BenchmarkRequestBehindBigToolResult times, in the same run, the
// step/start and agent/request round trip right after a 17 MiB
// tool/result (its text JSON-escaped as a go test log is: \t and \n every
// line) and right after a one-line tool/result: heavy/light is what
// applying the large event costs the requests behind it (issue 26, "the
// read loop never waits on a big frame"). The bench's events case drives
// the same frames through the binary.
//
//	go test -run '^$' -bench RequestBehindBigToolResult -cpuprofile cpu.out ./server/
func BenchmarkRequestBehindBigToolResult(b *testing.B) {
	p := startOSPipe(b)
	if _, e := p.call(b, "initialize", `{"protocolVersion":"1","host":{"name":"pi","version":"1"},"capabilities":{},"payloadProviders":["github-copilot"]}`); e != nil {
		b.Fatal(string(e))
	}
	line := []byte(`ok   \tgithub.com/example/pkg/sub\t0.123s coverage: 81.2% of statements\n`)
	const size = 17 << 20
	big := bytes.Repeat(line, size/len(line)+1)[:size]
	seq := 0
	p.event(b, seq, "session/created", `{}`)
	seq++
	p.event(b, seq, "turn/start", `{"turn":1}`)
	step, call := 0, 0
	// request starts the next step and returns its admission's round trip.
	request := func() time.Duration {
		step++
		start := time.Now()
		seq++
		p.event(b, seq, "step/start", fmt.Sprintf(`{"turn":1,"step":%d}`, step))
		res, e := p.call(b, "agent/request", fmt.Sprintf(`{"sessionId":"s","turn":1,"step":%d,"requestId":"r%d","config":{"provider":"github-copilot","model":"m"}}`, step, step))
		d := time.Since(start)
		if e != nil || !strings.Contains(string(res), `"enabled":true`) {
			b.Fatalf("admission %s %s", res, e)
		}
		return d
	}
	// result sends the step's tool/call and its tool/result with text.
	result := func(text []byte) {
		call++
		at := fmt.Sprintf(`"turn":1,"step":%d`, step)
		seq++
		p.event(b, seq, "tool/call", fmt.Sprintf(`{%s,"callId":"c%d","name":"bash","arguments":"{}"}`, at, call))
		seq++
		head := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s","event":{"type":"tool/result","seq":%d,"time":1,"data":{%s,`+
			`"message":{"role":"tool","source":{"kind":"tool","callId":"c%d"},"toolCallId":"c%d","content":[{"type":"text","text":"`, seq, at, call, call)
		tail := fmt.Sprintf(`"}]}},"sourceEventSeqs":[%d],"surfaceOp":"append"}}}`+"\n", seq-1)
		for _, part := range [][]byte{[]byte(head), text, []byte(tail)} {
			if _, err := p.in.Write(part); err != nil {
				b.Fatal(err)
			}
		}
		seq++
		p.event(b, seq, "step/end", `{`+at+`}`)
	}
	var heavy, light time.Duration
	for b.Loop() {
		light += request()
		result(big)
		heavy += request()
		result([]byte("ok"))
	}
	b.ReportMetric(float64(heavy.Microseconds())/float64(b.N), "heavy-us/op")
	b.ReportMetric(float64(light.Microseconds())/float64(b.N), "light-us/op")
	b.ReportMetric(float64(heavy)/float64(light), "heavy/light")
}

// startOSPipe is startBenchPipe with the plugin's stdin an OS pipe, as the
// host's is: a write returns once the kernel holds it, so the frames
// behind a large one are already there while the read loop applies it
// (an io.Pipe write would wait for the read loop instead, hiding that time
// in the write). The pipe is as wide as the binary makes its stdin.
func startOSPipe(b *testing.B) *benchPipe {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	widenPipe(inR)
	return serveBench(b, inR, inW)
}

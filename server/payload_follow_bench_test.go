package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// BenchmarkPayloadFollowed times the llm/payload round trip of a turn's
// first payload over OS pipes, Serve in this process, with the payload
// filtered while it arrives (followed) and, in the same run, after
// (today's path: followFrom out of reach), for each kind of payload.
//
//	go test -run '^$' -bench PayloadFollowed -benchtime 20x -count 5 ./server/
func BenchmarkPayloadFollowed(b *testing.B) {
	size := 64 << 20
	if s := os.Getenv("FOLLOW_BENCH_MIB"); s != "" {
		n, _ := strconv.Atoi(s)
		size = n << 20
	}
	kinds := []struct {
		name string
		spec payloadgen.Spec
	}{
		{"reasoning", payloadgen.ReasoningHeavy(size, 4096)},
		{"ordinary", payloadgen.Ordinary(size)},
		{"typical", payloadgen.Typical(size)},
	}
	for _, k := range kinds {
		body := payloadgen.Generate(k.spec).Body
		for _, way := range []string{"followed", "after"} {
			b.Run(k.name+"/"+way, func(b *testing.B) {
				from := followFrom
				followFrom = 0 // followed at every size, to compare with the threshold's choice
				if way == "after" {
					followFrom = math.MaxInt
				}
				defer func() { followFrom = from }()
				p := startFollowBench(b)
				for range 3 { // warm the buffers
					p.payload(b, body)
				}
				b.SetBytes(int64(len(body)))
				var best time.Duration = math.MaxInt64
				for b.Loop() {
					best = min(best, p.payload(b, body))
				}
				b.ReportMetric(float64(best.Microseconds())/1000, "best-ms")
			})
		}
	}
}

type followBench struct {
	in    *os.File
	out   *bufio.Reader
	id    int
	turn  int
	frame []byte
}

func startFollowBench(b *testing.B) *followBench {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		Serve(context.Background(), Config{In: inR, Out: outW, DataDir: b.TempDir()})
		outW.Close()
		close(done)
	}()
	b.Cleanup(func() {
		inW.Close()
		<-done
		inR.Close()
		outR.Close()
	})
	p := &followBench{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	p.call(b, "initialize", `{"protocolVersion":"1","host":{"name":"pi","version":"1"},"capabilities":{},"payloadProviders":["github-copilot"]}`)
	p.event(b, 0, "session/created", `{}`)
	return p
}

func (p *followBench) send(b *testing.B, frame []byte) []byte {
	errc := make(chan error, 1)
	go func() { _, err := p.in.Write(frame); errc <- err }()
	for {
		line, err := p.out.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// line is the reader's buffer, which reading the rest
			// overwrites: copy it first.
			head := bytes.Clone(line)
			rest, err2 := p.out.ReadBytes('\n')
			line, err = append(head, rest...), err2
		}
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(line[:min(len(line), 64)], []byte(`"id":`+strconv.Itoa(p.id)+`,`)) {
			if err := <-errc; err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(line[:min(len(line), 128)], []byte(`"error"`)) {
				b.Fatalf("error reply: %.300s", line)
			}
			return line
		}
	}
}

func (p *followBench) call(b *testing.B, method, params string) []byte {
	p.id++
	return p.send(b, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", p.id, method, params))
}

func (p *followBench) event(b *testing.B, seq int, typ, data string) {
	hdr := fmt.Sprintf(`{"createdAt":%d,"isSeeded":false}`, time.Now().Add(time.Hour).UnixMilli())
	if _, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"s","event":{"type":%q,"seq":%d,"time":1,"data":%s},"header":%s}}`+"\n",
		typ, seq, data, hdr); err != nil {
		b.Fatal(err)
	}
}

// payload sends body as the first payload of a new turn and returns the
// round trip's time.
func (p *followBench) payload(b *testing.B, body []byte) time.Duration {
	p.turn++
	t := strconv.Itoa(p.turn)
	seq := 3 * p.turn
	if p.turn > 1 {
		p.event(b, seq-2, "turn/end", `{"turn":`+strconv.Itoa(p.turn-1)+`,"reason":{"kind":"completed"}}`)
	}
	p.event(b, seq-1, "turn/start", `{"turn":`+t+`}`)
	p.event(b, seq, "step/start", `{"turn":`+t+`,"step":1}`)
	rid := "r" + t
	p.call(b, "agent/request", `{"sessionId":"s","turn":`+t+`,"step":1,"requestId":"`+rid+`","config":{"provider":"github-copilot","model":"m"}}`)
	p.id++
	p.frame = append(p.frame[:0], `{"jsonrpc":"2.0","id":`+strconv.Itoa(p.id)+`,"method":"llm/payload","params":{"requestId":"`+rid+
		`","sessionId":"s","turn":`+t+`,"step":1,"provider":"github-copilot","model":"m","payload":`...)
	p.frame = append(append(p.frame, body...), "}}\n"...)
	start := time.Now()
	line := p.send(b, p.frame)
	d := time.Since(start)
	if !bytes.Contains(line, []byte(`"outcome":"filtered"`)) && !bytes.Contains(line, []byte(`"outcome":"unchanged"`)) {
		b.Fatalf("llm/payload: %.300s", line)
	}
	return d
}

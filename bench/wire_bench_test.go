package bench

import (
	"context"
	"os"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
	"github.com/continuity-dev/continuity/server"
)

// The wire benchmarks report MB/s of payload bytes for a round trip of a
// turn's first payload, next to the same frame through cat:
//
//	go test -run '^$' -bench WireRoundTrip ./bench
//
// BenchmarkPluginInProcess runs the same conversation against server.Serve
// inside the test process, over OS pipes, so that a CPU profile shows the
// plugin's side of the round trip:
//
//	go test -run '^$' -bench PluginInProcess -cpuprofile cpu.out ./bench

var wireBenchSizes = []struct {
	name string
	size int
}{{"1MiB", 1 << 20}, {"64MiB", 64 << 20}}

func BenchmarkWireRoundTrip(b *testing.B) {
	p, err := StartPlugin(testbin.Path(b), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, s := range wireBenchSizes {
		pl, err := Generate(KindTypical, s.size)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.name+"/plugin", func(b *testing.B) { benchPayloads(b, p, pl) })
		b.Run(s.name+"/cat", func(b *testing.B) {
			cat, err := StartPipe()
			if err != nil {
				b.Skip(err)
			}
			defer cat.Close()
			frame := p.payloadFrame(nil, pl.Body)
			b.SetBytes(int64(len(pl.Body)))
			for b.Loop() {
				if _, err := cat.Copy(frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPluginInProcess(b *testing.B) {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		server.Serve(context.Background(), server.Config{In: inR, Out: outW, DataDir: b.TempDir()})
		outW.Close()
		close(served)
	}()
	p, err := newPlugin(newClient(inW, outR), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range wireBenchSizes {
		pl, err := Generate(KindTypical, s.size)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.name, func(b *testing.B) { benchPayloads(b, p, pl) })
	}
	p.Close()
	<-served
}

// benchPayloads sends pl as the first payload of a new turn per iteration;
// only the llm/payload round trip is timed.
func benchPayloads(b *testing.B, p *Plugin, pl Payload) {
	b.SetBytes(int64(len(pl.Body)))
	for b.Loop() {
		b.StopTimer()
		if err := p.NextTurn(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		reply, _, err := p.Payload(pl.Body)
		if err != nil {
			b.Fatal(err)
		}
		if reply.Omitted != pl.Reasoning() {
			b.Fatalf("omitted %d of %d reasoning items", reply.Omitted, pl.Reasoning())
		}
	}
}

package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/internal/testbin"
)

// BenchmarkSessionEventPeakMemory measures the plugin's peak resident
// memory for one session event of 64 MiB and of 200 MiB (a tool result's
// output), against the event's size — the bytes in flight while it is
// applied (issue 18 #7: decoded whole, more than once, such events peaked
// near 9× their size). It reports peak-RSS/event and fails above 3×.
//
//	go test -run NONE -bench SessionEventPeakMemory -benchtime 1x ./plugin
func BenchmarkSessionEventPeakMemory(b *testing.B) {
	for _, c := range []struct {
		name string
		size int64
	}{{"64MiB", 64 << 20}, {"200MiB", 200 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			var ratio float64
			for b.Loop() {
				ratio = eventPeakRatio(b, c.size)
			}
			b.ReportMetric(ratio, "peakRSS/event")
			if ratio > 3 {
				b.Fatalf("peak RSS is %.1f× the %d MiB event", ratio, c.size>>20)
			}
		})
	}
}

// eventPeakRatio starts a plugin, streams one tool/result event of size
// bytes to it, waits until it is applied (a later request is answered
// after it) and returns the plugin's peak RSS over size.
func eventPeakRatio(b *testing.B, size int64) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, err := host.Start(ctx, host.Config{Binary: testbin.Path(b), DataDir: b.TempDir(), MaxFrameBytes: int(size + 1<<20),
		Env: []string{"XDG_STATE_HOME=" + b.TempDir()}})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Initialize(ctx, host.AllCapabilities()); err != nil {
		b.Fatal(err)
	}
	filler := host.Filler{
		Prefix: []byte(`{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"s1","event":{"type":"tool/result","seq":1,"time":1,"data":{"callId":"c1","output":"`),
		Fill:   'o',
		Suffix: []byte(`"}}}}`),
	}
	if err := h.SendHugeLine(size, filler); err != nil {
		b.Fatal(err)
	}
	if _, rerr, err := h.Call(ctx, "remote/invoke", map[string]any{"namespace": "continuity", "method": "notices", "args": map[string]any{"agentId": "s1"}}); err != nil || rerr != nil {
		b.Fatalf("after the event: %v %v", err, rerr)
	}
	peak, err := h.PeakRSS()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d MiB event: peak RSS %d MiB", size>>20, peak>>20)
	return float64(peak) / float64(size)
}

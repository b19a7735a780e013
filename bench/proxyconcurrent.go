package bench

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/proxy"
)

// ProxyConcurrent is many sessions at once: Sessions clients, each its own
// session, sending Size-byte bodies together, Rounds times, through a
// plain httputil.ReverseProxy and through `continuity proxy` alternately
// in this run; the filter on the same bodies, as many at once. Times are
// p99 of every request's time to first byte (nearest rank).
type ProxyConcurrent struct {
	Sessions   int   `json:"sessions"`
	Size       int   `json:"size"`
	Samples    int   `json:"samples"` // requests per side
	PlainP99Ns int64 `json:"plainP99Ns"`
	ProxyP99Ns int64 `json:"proxyP99Ns"`
	AddedP99Ns int64 `json:"addedP99Ns"`
	FilterP99  int64 `json:"filterP99Ns"`
	// HeldPeak is the most body bytes the proxy held charged to its body
	// budget at once (proxy.Proxy.Peak); Budget is that budget.
	HeldPeak int64 `json:"heldPeak"`
	Budget   int64 `json:"budget"`
	// HeapPeak is the most the heap's live and unswept objects grew over
	// their level before the run, sampled every 2 ms while the proxy's
	// rounds ran (the plain proxy, the clients and the upstream included).
	HeapPeak int64 `json:"heapPeak"`
}

// concurrentRow measures ProxyConcurrent on the pair.
func (r *runner) concurrentRow(pair *proxyPair) error {
	n, size, rounds := r.cfg.ProxySessions, r.cfg.ProxySessionBytes, max(1, r.cfg.ProxySessionRounds)
	r.logf("bench: proxy       %8s  %d sessions at once", FormatSize(size), n)
	gen := payloadgen.Generate(payloadgen.Typical(size)).Body
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = append([]byte(`{"prompt_cache_key":"bench-session-`+strconv.Itoa(i)+`",`), gen[1:]...)
	}
	var plain, ours, filt []time.Duration
	heap := startHeapSampler()
	for round := range rounds {
		order := []*httptest.Server{pair.plain, pair.ours}
		if round%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, s := range order {
			heap.measure(s == pair.ours)
			ds, err := together(n, func(i int) (time.Duration, error) {
				d, _, err := pair.post(s.URL, "/v1/responses", bodies[i])
				return d, err
			})
			heap.measure(false)
			if err != nil {
				return err
			}
			if s == pair.ours {
				ours = append(ours, ds...)
			} else {
				plain = append(plain, ds...)
			}
		}
		ds, err := together(n, func(i int) (time.Duration, error) {
			start := time.Now()
			_, err := filter.Select(context.Background(), bodies[i], filter.Options{StripPairedIDs: true, NoCopy: true}, nil,
				func(filter.Candidate) bool { return false })
			return time.Since(start), err
		})
		if err != nil {
			return fmt.Errorf("bench: filter: %w", err)
		}
		filt = append(filt, ds...)
	}
	for _, s := range [][]time.Duration{plain, ours, filt} {
		sortDurations(s)
	}
	row := &ProxyConcurrent{Sessions: n, Size: size, Samples: len(ours),
		PlainP99Ns: quantile(plain, 0.99).Nanoseconds(), ProxyP99Ns: quantile(ours, 0.99).Nanoseconds(),
		FilterP99: quantile(filt, 0.99).Nanoseconds(), HeldPeak: pair.px.Peak(), Budget: proxy.DefaultLimits.BodyBudget,
		HeapPeak: heap.stop()}
	row.AddedP99Ns = row.ProxyP99Ns - row.PlainP99Ns
	r.rep.ProxyConcurrent = row
	return nil
}

// together runs f(0)…f(n-1) at once and returns their durations.
func together(n int, f func(i int) (time.Duration, error)) ([]time.Duration, error) {
	out := make([]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i], errs[i] = f(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// heapSampler samples the heap's object bytes every 2 ms on its own
// goroutine, owned by it and ended by stop, keeping the peak over the
// level at its start while measuring is on.
type heapSampler struct {
	mu      sync.Mutex
	on      bool
	base    uint64
	peak    int64
	done    chan struct{}
	stopped chan struct{}
	read    func() uint64
}

func startHeapSampler() *heapSampler {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[0].Value.Uint64()
	}
	h := &heapSampler{base: read(), done: make(chan struct{}), stopped: make(chan struct{}), read: read}
	go func() {
		defer close(h.stopped)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-t.C:
				h.sample()
			}
		}
	}()
	return h
}

func (h *heapSampler) sample() {
	v := h.read()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.on && v > h.base {
		h.peak = max(h.peak, int64(v-h.base))
	}
}

// measure turns sampling into the peak on or off.
func (h *heapSampler) measure(on bool) {
	h.sample()
	h.mu.Lock()
	h.on = on
	h.mu.Unlock()
	h.sample()
}

// stop ends the sampler and returns the peak.
func (h *heapSampler) stop() int64 {
	close(h.done)
	<-h.stopped
	return h.peak
}

// concurrentBars are the goals for many sessions at once.
func concurrentBars(c *ProxyConcurrent) []Bar {
	if c == nil {
		return nil
	}
	name := fmt.Sprintf("proxy, %d sessions at once, %s bodies", c.Sessions, FormatSize(c.Size))
	return []Bar{
		{Name: name + ": added p99 time to first byte", Want: "≤ the filter's p99 + 1 ms",
			Pass: c.AddedP99Ns <= c.FilterP99+int64(proxyTTFBSlack),
			Got: fmt.Sprintf("%s added (plain %s, proxy %s, filter %s; %d requests each)",
				signedDur(c.AddedP99Ns), dur(c.PlainP99Ns), dur(c.ProxyP99Ns), dur(c.FilterP99), c.Samples),
			Value: ms(c.AddedP99Ns), Limit: ms(c.FilterP99 + int64(proxyTTFBSlack)), Unit: UnitMs},
		{Name: name + ": peak memory", Want: "within the body budget (" + FormatSize(int(c.Budget)) + ")",
			Pass:  c.HeldPeak <= c.Budget && c.HeapPeak <= c.Budget,
			Got:   fmt.Sprintf("bodies held at most %s, heap grew at most %s", FormatSize(int(c.HeldPeak)), FormatSize(int(c.HeapPeak))),
			Value: float64(max(c.HeldPeak, c.HeapPeak)) / (1 << 20), Limit: float64(c.Budget) / (1 << 20), Unit: UnitMiB},
	}
}

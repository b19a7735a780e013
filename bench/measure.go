package bench

import (
	"math"
	"runtime"
	"slices"
	"time"
)

// budget says how often to run a case: at least min times and, below max
// times, until dur has passed. Small payloads get many samples (so that p99
// means something) and 64 MiB payloads only a few.
type budget struct {
	min int
	dur time.Duration
	max int
}

// sample holds what one case measured: the duration of each op, and the
// allocations and process CPU time per op over all of them.
type sample struct {
	times      []time.Duration // sorted ascending
	allocBytes float64
	allocs     float64
	cpu        time.Duration
}

// op runs one operation and returns the duration of its measured part;
// operations that need untimed setup (a new turn on the wire) time
// themselves.
type op func() (time.Duration, error)

// timed wraps an operation that is measured whole.
func timed(fn func() error) op {
	return func() (time.Duration, error) {
		start := time.Now()
		err := fn()
		return time.Since(start), err
	}
}

// measure runs fn once to warm up (and to let it check its own result),
// collects garbage so that earlier cases do not bill this one, and then
// samples it within b.
func measure(b budget, fn op) (sample, error) {
	if _, err := fn(); err != nil {
		return sample{}, err
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := cpuTime()
	start := time.Now()
	var times []time.Duration
	for len(times) < b.min || (len(times) < b.max && time.Since(start) < b.dur) {
		d, err := fn()
		if err != nil {
			return sample{}, err
		}
		times = append(times, d)
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&m1)
	n := float64(len(times))
	sortDurations(times)
	return sample{
		times:      times,
		allocBytes: float64(m1.TotalAlloc-m0.TotalAlloc) / n,
		allocs:     float64(m1.Mallocs-m0.Mallocs) / n,
		cpu:        time.Duration(float64(cpu) / n),
	}, nil
}

// quantile returns the q-quantile (0 < q ≤ 1) of sorted durations by the
// nearest-rank method, so p99 of fewer than 100 samples is their maximum.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

// mbps is bytes per duration in MB/s (10⁶ bytes).
func mbps(bytes int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / d.Seconds() / 1e6
}

func sortDurations(d []time.Duration) { slices.Sort(d) }

package bench

import (
	"math"
	"runtime"
	"runtime/debug"
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
	// peerCPU is a remote job's CPU time per operation in the process on
	// the other end (job.peer); cpu is then this process's side.
	peerCPU time.Duration
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

// gcEvery is how much garbage interleave lets pile up before it collects
// between samples: half the collector's own 4 MiB minimum goal, so earlier
// samples' garbage never sets off a collection during a later sample.
const gcEvery = 2 << 20

// job is one case of an interleaved measurement: its operation, its
// budget, how many untimed warm-up calls it gets, and whether its work
// happens in another process (remote: this process's garbage collector
// is held off while it is sampled, and its allocations are not this
// process's to count). peer, when known, is the CPU time the other
// process has used so far.
type job struct {
	fn      op
	b       budget
	warmups int
	remote  bool
	peer    func() time.Duration
}

// interleave measures jobs whose results are compared with each other:
// each is warmed up (which also lets it check its own result), then they
// are sampled in turns — one sample of each per round, the round's first
// job rotating — until each has its budget, so the two sides of a ratio
// see the same machine state instead of one minute's noise each. A job's
// budget counts its own measured time.
//
// Before a sample of an in-process job the heap is collected whenever
// gcEvery bytes or more were allocated since the last collection, so no
// sample pays for another's garbage (a 64 MiB encoding/json pass leaves
// about 280 MB) and the collector starts on its own mid-sample only when
// that sample alone outgrows the heap's headroom (encoding/json at 64 MiB,
// which pays for it as a gateway would); collecting before every sample
// would instead leave every small sample with cold caches. Allocations and CPU time are read around the
// operation itself. While a remote job is sampled this process's
// collector is off, so it cannot take one of two cores from the process
// being timed; the client reuses its buffers, so that costs little.
func interleave(jobs []job) ([]sample, error) {
	for _, j := range jobs {
		for range max(1, j.warmups) {
			if _, err := j.fn(); err != nil {
				return nil, err
			}
		}
	}
	out := make([]sample, len(jobs))
	spent := make([]time.Duration, len(jobs))
	var allocBytes, allocs []uint64
	allocBytes, allocs = make([]uint64, len(jobs)), make([]uint64, len(jobs))
	cpu, peerCPU := make([]time.Duration, len(jobs)), make([]time.Duration, len(jobs))
	wants := func(i int) bool {
		n, b := len(out[i].times), jobs[i].b
		return n < b.min || n < b.max && spent[i] < b.dur
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m1)
	collected := m1.TotalAlloc
	for round := 0; ; round++ {
		sampled := false
		for k := range jobs {
			i := (round + k) % len(jobs)
			if !wants(i) {
				continue
			}
			sampled = true
			j := jobs[i]
			var d time.Duration
			var err error
			if j.remote {
				gc := debug.SetGCPercent(-1) // waits out a cycle in progress
				c0, p0 := cpuTime(), peerTime(j)
				d, err = j.fn()
				cpu[i] += cpuTime() - c0
				peerCPU[i] += peerTime(j) - p0
				debug.SetGCPercent(gc)
			} else {
				if m1.TotalAlloc-collected >= gcEvery {
					runtime.GC()
				}
				runtime.ReadMemStats(&m0)
				if m0.NumGC != m1.NumGC {
					collected = m0.TotalAlloc
				}
				c0 := cpuTime()
				d, err = j.fn()
				cpu[i] += cpuTime() - c0
				runtime.ReadMemStats(&m1)
				allocBytes[i] += m1.TotalAlloc - m0.TotalAlloc
				allocs[i] += m1.Mallocs - m0.Mallocs
			}
			if err != nil {
				return nil, err
			}
			out[i].times = append(out[i].times, d)
			spent[i] += d
		}
		if !sampled {
			break
		}
	}
	for i := range out {
		n := float64(len(out[i].times))
		sortDurations(out[i].times)
		out[i].allocBytes = float64(allocBytes[i]) / n
		out[i].allocs = float64(allocs[i]) / n
		out[i].cpu = time.Duration(float64(cpu[i]) / n)
		out[i].peerCPU = time.Duration(float64(peerCPU[i]) / n)
	}
	return out, nil
}

// peerTime is the CPU time j's peer process has used, 0 when unknown.
func peerTime(j job) time.Duration {
	if j.peer == nil {
		return 0
	}
	return j.peer()
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

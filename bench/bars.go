package bench

import (
	"fmt"
	"runtime"
	"time"
)

// barSize is the payload size docs/design.md §6 defines its throughput bars at,
// and latencySize the size of its latency bar.
const (
	barSize     = 64 << 20
	latencySize = 1 << 20
)

// The limits of docs/design.md §6, in one place: TestBarsAgreeWithTheDesign
// finds each of them, written as the bar states it, in §6, so the document
// and the check cannot drift apart.
const (
	filterVsSHA256Min = 1.0  // validating filter over single-core SHA-256 throughput, 64 MiB reasoning
	filterAllocMax    = 1.2  // filter allocation over the payload, 64 MiB reasoning
	filterVsJSONMin   = 10.0 // filter over encoding/json throughput, 64 MiB ordinary
	wireVsFilterMax   = 1.3  // wire round trip over the filter alone, time, 64 MiB
	wireP99Max        = 3 * time.Millisecond
	eventP99Max       = 5 * time.Millisecond // payload p99 behind 17 MiB tool/results
	eventAdmitP50Max  = 2 * time.Millisecond // agent/request p50 right after a 17 MiB tool/result
	proxyTTFBSlack    = time.Millisecond     // proxy added time to first byte over the filter's own time
	proxyAllocMax     = 2.0                  // proxy allocation per request over its body
	proxyStreamMin    = 0.95                 // proxy SSE throughput over a plain ReverseProxy
)

// Units of Bar.Value and Bar.Limit.
const (
	UnitMs    = "ms"
	UnitRatio = "×"
	UnitMiB   = "MiB"
)

// ms is a duration in milliseconds, the unit of every time bar's Value.
func ms[T ~int64](d T) float64 { return float64(d) / 1e6 }

// bars checks the docs/design.md §6 bars against ratios measured in this run.
// Throughput bars use the largest size measured; when that is not 64 MiB
// (a --quick run) each bar says so.
func bars(rep *Report, sizes []int) []Bar {
	if len(sizes) == 0 {
		return nil
	}
	big := sizes[len(sizes)-1]
	note := ""
	if big != barSize {
		note = "measured at " + FormatSize(big) + "; the bar is defined at 64 MiB"
	}
	var out []Bar
	// add judges row with value against b's Limit (b.HigherIsBetter says
	// which side passes; strict makes the bound exclusive).
	add := func(b Bar, row *Row, value func(*Row) float64, strict bool, got func(*Row) string) {
		if row == nil {
			b.Got, b.Note = "not measured", note
			out = append(out, b)
			return
		}
		b.Value, b.Got = value(row), got(row)
		b.Pass = within(b.Value, b.Limit, b.HigherIsBetter, strict)
		if b.Note == "" {
			b.Note = note
		}
		out = append(out, b)
	}
	sz := FormatSize(big)
	add(Bar{Name: "filter vs SHA-256, reasoning " + sz, Want: fmt.Sprintf("≥ %.2f× single-core SHA-256 throughput", filterVsSHA256Min),
		Limit: filterVsSHA256Min, Unit: UnitRatio, HigherIsBetter: true},
		rep.find(GroupSize, CaseFilter, KindReasoning, big),
		func(r *Row) float64 { return r.VsSHA256 }, false,
		func(r *Row) string { return fmt.Sprintf("%.2f× (%d reasoning items)", r.VsSHA256, r.Reasoning) })
	add(Bar{Name: "filter allocations, reasoning " + sz, Want: fmt.Sprintf("≤ %.1f× the payload", filterAllocMax),
		Limit: filterAllocMax, Unit: UnitRatio},
		rep.find(GroupSize, CaseFilter, KindReasoning, big),
		func(r *Row) float64 { return r.AllocPerByte }, false,
		func(r *Row) string { return fmt.Sprintf("%.3f× the payload", r.AllocPerByte) })
	add(Bar{Name: "filter vs encoding/json, ordinary " + sz, Want: fmt.Sprintf("≥ %.0f× faster", filterVsJSONMin),
		Limit: filterVsJSONMin, Unit: UnitRatio, HigherIsBetter: true},
		rep.find(GroupSize, CaseFilter, KindOrdinary, big),
		func(r *Row) float64 { return r.VsJSON }, false,
		func(r *Row) string { return fmt.Sprintf("%.1f×", r.VsJSON) })
	for _, kind := range Kinds {
		add(Bar{Name: "wire round trip vs filter alone, " + kind + " " + sz, Want: fmt.Sprintf("≤ %.1f× the filter's time", wireVsFilterMax),
			Limit: wireVsFilterMax, Unit: UnitRatio},
			rep.find(GroupSize, CaseWire, kind, big),
			func(r *Row) float64 {
				if r.VsFilter == 0 {
					return 0
				}
				return 1 / r.VsFilter
			}, false,
			func(r *Row) string {
				if r.VsFilter == 0 {
					return "no filter row to compare with"
				}
				return fmt.Sprintf("%.2f× (%.0f vs %.0f MB/s)", 1/r.VsFilter, r.MBps, r.MBps/r.VsFilter) +
					cpuFloor(r, rep.find(GroupSize, CaseFilter, r.Kind, r.Size))
			})
		if r := rep.find(GroupSize, CaseWire, kind, big); r != nil && r.VsFilter == 0 {
			out[len(out)-1].Pass = false // no ratio: a Value of 0 must not pass
		}
	}
	for _, kind := range Kinds {
		b := Bar{Name: "wire p99, " + kind + " 1 MiB", Want: fmt.Sprintf("< %.0f ms", ms(wireP99Max)), Limit: ms(wireP99Max), Unit: UnitMs}
		if !contains(sizes, latencySize) {
			b.Got, b.Note = "not measured", "1 MiB is not among the sizes"
			out = append(out, b)
			continue
		}
		row := rep.find(GroupSize, CaseWire, kind, latencySize)
		if row == nil {
			b.Got = "not measured"
			out = append(out, b)
			continue
		}
		b.Value = ms(row.P99Ns)
		b.Pass = within(b.Value, b.Limit, false, true)
		b.Got = fmt.Sprintf("%.2f ms (p50 %.2f ms, %d round trips)", ms(row.P99Ns), ms(row.P50Ns), row.Ops)
		out = append(out, b)
	}
	return append(out, eventBars(rep.Events)...)
}

// eventBars are the event-stream bars: payload p99 behind 17 MiB tool
// results, with the same run's baseline beside it, and the agent/request
// that follows such a result.
func eventBars(es *EventStream) []Bar {
	p99 := Bar{Name: "payload p99 behind 17 MiB tool/result events, 1 MiB", Want: fmt.Sprintf("< %.0f ms", ms(eventP99Max)),
		Limit: ms(eventP99Max), Unit: UnitMs}
	admit := Bar{Name: "agent/request p50 right after a 17 MiB tool/result", Want: fmt.Sprintf("< %.0f ms", ms(eventAdmitP50Max)),
		Limit: ms(eventAdmitP50Max), Unit: UnitMs}
	if es == nil {
		p99.Got, p99.Note = "not measured", "no binary, or no event steps"
		admit.Got, admit.Note = p99.Got, p99.Note
		return []Bar{p99, admit}
	}
	p99.Value = ms(es.P99Ns)
	p99.Pass = within(p99.Value, p99.Limit, false, true)
	p99.Got = fmt.Sprintf("%.2f ms (p50 %.2f ms, %d payloads; after one-line results p99 %.2f ms, %.2f×)",
		ms(es.P99Ns), ms(es.P50Ns), es.Steps, ms(es.BaselineP99Ns), es.VsBaseline)
	admit.Value = ms(es.AdmitP50Ns)
	admit.Pass = within(admit.Value, admit.Limit, false, true)
	admit.Got = fmt.Sprintf("%.2f ms (%.2f ms after a one-line result, %d requests each)",
		ms(es.AdmitP50Ns), ms(es.AdmitBaselineP50Ns), es.Steps)
	return []Bar{p99, admit}
}

// within says whether value is on the passing side of limit: at or above
// it when higher is better, at or below it otherwise; strict excludes the
// limit itself (the "<" bars).
func within(value, limit float64, higherIsBetter, strict bool) bool {
	switch {
	case higherIsBetter && strict:
		return value > limit
	case higherIsBetter:
		return value >= limit
	case strict:
		return value < limit
	}
	return value <= limit
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// cpuFloor says, for a round trip whose processes' CPU times were
// measured, what the machine's cores allow: with both processes busy the
// round trip takes about their CPU time over the cores (a little less:
// the figures hold the turn's untimed events), next to the CPU time of
// the filter alone. Empty when not measured.
func cpuFloor(wire, filter *Row) string {
	if wire.PeerCPUNsPerOp == 0 || filter == nil || filter.CPUNsPerOp == 0 {
		return ""
	}
	cores := runtime.NumCPU()
	both := wire.PeerCPUNsPerOp + wire.HostCPUNsPerOp
	return fmt.Sprintf("; CPU per op: plugin %.1f ms + host %.1f ms (the turn's untimed events included), the filter alone %.1f ms; on %d cores that is about %.1f ms",
		nsMs(wire.PeerCPUNsPerOp), nsMs(wire.HostCPUNsPerOp), nsMs(filter.CPUNsPerOp), cores, nsMs(both/int64(cores)))
}

func nsMs(ns int64) float64 { return float64(ns) / 1e6 }

package bench

import (
	"fmt"
	"time"
)

// barSize is the payload size docs/design.md §6 defines its throughput bars at,
// and latencySize the size of its latency bar.
const (
	barSize     = 64 << 20
	latencySize = 1 << 20
	p99Limit    = 5 * time.Millisecond
)

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
	add := func(b Bar, row *Row, ok func(*Row) bool, got func(*Row) string) {
		if row == nil {
			b.Got, b.Note = "not measured", note
			out = append(out, b)
			return
		}
		b.Pass, b.Got = ok(row), got(row)
		if b.Note == "" {
			b.Note = note
		}
		out = append(out, b)
	}
	sz := FormatSize(big)
	add(Bar{Name: "filter vs SHA-256, reasoning " + sz, Want: "≥ 0.60× single-core SHA-256 throughput"},
		rep.find(GroupSize, CaseFilter, KindReasoning, big),
		func(r *Row) bool { return r.VsSHA256 >= 0.6 },
		func(r *Row) string { return fmt.Sprintf("%.2f× (%d reasoning items)", r.VsSHA256, r.Reasoning) })
	add(Bar{Name: "filter allocations, reasoning " + sz, Want: "≤ 1.2× the payload"},
		rep.find(GroupSize, CaseFilter, KindReasoning, big),
		func(r *Row) bool { return r.AllocPerByte <= 1.2 },
		func(r *Row) string { return fmt.Sprintf("%.3f× the payload", r.AllocPerByte) })
	add(Bar{Name: "filter vs encoding/json, ordinary " + sz, Want: "≥ 10× faster"},
		rep.find(GroupSize, CaseFilter, KindOrdinary, big),
		func(r *Row) bool { return r.VsJSON >= 10 },
		func(r *Row) string { return fmt.Sprintf("%.1f×", r.VsJSON) })
	for _, kind := range Kinds {
		add(Bar{Name: "wire round trip vs filter alone, " + kind + " " + sz, Want: "≤ 3× the filter's time"},
			rep.find(GroupSize, CaseWire, kind, big),
			func(r *Row) bool { return r.VsFilter > 0 && 1/r.VsFilter <= 3 },
			func(r *Row) string {
				if r.VsFilter == 0 {
					return "no filter row to compare with"
				}
				return fmt.Sprintf("%.2f× (%.0f vs %.0f MB/s)", 1/r.VsFilter, r.MBps, r.MBps/r.VsFilter)
			})
	}
	for _, kind := range Kinds {
		b := Bar{Name: "wire p99, " + kind + " 1 MiB", Want: "< 5 ms"}
		if !contains(sizes, latencySize) {
			b.Got, b.Note = "not measured", "1 MiB is not among the sizes"
			out = append(out, b)
			continue
		}
		add(b, rep.find(GroupSize, CaseWire, kind, latencySize),
			func(r *Row) bool { return time.Duration(r.P99Ns) < p99Limit },
			func(r *Row) string {
				return fmt.Sprintf("%.2f ms (p50 %.2f ms, %d round trips)", float64(r.P99Ns)/1e6, float64(r.P50Ns)/1e6, r.Ops)
			})
	}
	return append(out, eventBar(rep.Events))
}

// eventBar is the event-stream bar: payload p99 behind 17 MiB tool
// results, with the same run's baseline beside it.
func eventBar(es *EventStream) Bar {
	b := Bar{Name: "payload p99 behind 17 MiB tool/result events, 1 MiB", Want: "< 5 ms"}
	if es == nil {
		b.Got, b.Note = "not measured", "no binary, or no event steps"
		return b
	}
	b.Pass = time.Duration(es.P99Ns) < p99Limit
	b.Got = fmt.Sprintf("%.2f ms (p50 %.2f ms, %d payloads; after one-line results p99 %.2f ms, %.2f×); "+
		"applying a 17 MiB result: agent/request p50 %.2f ms (%.2f ms after a line)",
		float64(es.P99Ns)/1e6, float64(es.P50Ns)/1e6, es.Steps, float64(es.BaselineP99Ns)/1e6, es.VsBaseline,
		float64(es.AdmitP50Ns)/1e6, float64(es.AdmitBaselineP50Ns)/1e6)
	return b
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

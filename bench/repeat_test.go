package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// runOf is a report of one run with the given bars, as Run leaves them.
func runOf(started time.Time, bars ...Bar) *Report {
	for i := range bars {
		bars[i].Runs, bars[i].WorstRun = 1, 1
		if bars[i].Pass {
			bars[i].Passed = 1
		}
	}
	return &Report{Started: started, Duration: "2m10s", Bars: bars}
}

func timeBar(v float64) Bar {
	return Bar{Name: "wire p99, typical 1 MiB", Want: "< 3 ms", Value: v, Limit: 3, Unit: UnitMs, Pass: v < 3,
		Got: strings.TrimSpace(valueText(Bar{Value: v, Limit: 3, Unit: UnitMs}))}
}

func ratioBar(v float64) Bar {
	return Bar{Name: "filter vs SHA-256, reasoning 64 MiB", Want: "≥ 1.00×", Value: v, Limit: 1, Unit: UnitRatio, HigherIsBetter: true,
		Pass: v >= 1, Got: valueText(Bar{Value: v, Limit: 1, Unit: UnitRatio})}
}

// ttfbBar is a bar whose limit is its own run's filter time plus 1 ms.
func ttfbBar(added, filter float64) Bar {
	return Bar{Name: "proxy added time to first byte, 16 MiB", Value: added, Limit: filter + 1, Unit: UnitMs, Pass: added <= filter+1,
		Got: valueText(Bar{Value: added, Limit: 1, Unit: UnitMs})}
}

// TestAggregateTakesTheWorstRun: times take the highest run, throughput
// ratios the lowest, a bar with a limit of its own run's the run with the
// least room; a failing run is worst whatever its number; Pass needs all.
func TestAggregateTakesTheWorstRun(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	runs := []*Report{
		runOf(t0, timeBar(2.1), ratioBar(1.10), ttfbBar(10, 12)),
		runOf(t0.Add(3*time.Minute), timeBar(2.8), ratioBar(1.02), ttfbBar(12, 20)),
		runOf(t0.Add(6*time.Minute), timeBar(2.4), ratioBar(1.05), ttfbBar(11, 11)),
	}
	got := Aggregate(runs)
	want := []struct {
		worst  int
		value  float64
		passed int
	}{{2, 2.8, 3}, {2, 1.02, 3}, {3, 11, 3}}
	if len(got) != len(want) {
		t.Fatalf("%d bars, want %d", len(got), len(want))
	}
	for i, w := range want {
		b := got[i]
		if b.WorstRun != w.worst || b.Value != w.value || b.Passed != w.passed || b.Runs != 3 || !b.Pass {
			t.Errorf("%s: worst run %d value %v passed %d/%d pass %v, want run %d value %v passed %d/3",
				b.Name, b.WorstRun, b.Value, b.Passed, b.Runs, b.Pass, w.worst, w.value, w.passed)
		}
	}

	// One failing run makes the bar fail and is the worst, even when a
	// passing run is numerically further out (a ttfb limit moves per run).
	runs[0].Bars[0] = timeBar(3.2)
	runs[0].Bars[0].Runs, runs[0].Bars[0].WorstRun = 1, 1
	runs[1].Bars[2] = ttfbBar(40, 45)
	runs[1].Bars[2].Runs, runs[1].Bars[2].WorstRun, runs[1].Bars[2].Passed = 1, 1, 1
	runs[2].Bars[2] = ttfbBar(13, 11)
	runs[2].Bars[2].Runs, runs[2].Bars[2].WorstRun = 1, 1
	got = Aggregate(runs)
	if b := got[0]; b.Pass || b.Passed != 2 || b.WorstRun != 1 || b.Value != 3.2 {
		t.Errorf("time bar with one failing run: pass %v, %d/%d, worst run %d (%v)", b.Pass, b.Passed, b.Runs, b.WorstRun, b.Value)
	}
	if b := got[2]; b.Pass || b.Passed != 2 || b.WorstRun != 3 {
		t.Errorf("ttfb bar with one failing run: pass %v, %d/%d, worst run %d", b.Pass, b.Passed, b.Runs, b.WorstRun)
	}

	// A bar one run did not judge fails and says so.
	runs[2].Bars = runs[2].Bars[:2]
	got = Aggregate(runs)
	if b := got[2]; b.Pass || b.Passed != 2 || b.Runs != 3 || !strings.Contains(b.Note, "not judged in 1 of 3 runs") {
		t.Errorf("a bar missing from a run: pass %v, %d/%d, note %q", b.Pass, b.Passed, b.Runs, b.Note)
	}
}

// TestSeriesReport: the series is the last run's report with every run,
// spanning their time, and its lines say how many runs passed.
func TestSeriesReport(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	first, last := fakeReport(), fakeReport()
	first.Started, first.Duration = t0, "2m0s"
	last.Started, last.Duration = t0.Add(2*time.Minute), "2m30s"
	// the first run's typical wire p99 passes, the last's (3 ms) does not
	for i, b := range first.Bars {
		if b.Name == "wire p99, typical 1 MiB" {
			first.Bars[i].Value, first.Bars[i].Pass, first.Bars[i].Got = 2.5, true, "2.50 ms"
		}
	}
	for _, r := range []*Report{first, last} {
		for i := range r.Bars {
			r.Bars[i].Runs, r.Bars[i].WorstRun, r.Bars[i].Passed = 1, 1, map[bool]int{true: 1}[r.Bars[i].Pass]
		}
	}
	s := Series([]*Report{first, last})
	if len(s.Runs) != 2 || s.Started != t0 || s.Duration != "4m30s" || len(s.Rows) != len(last.Rows) {
		t.Fatalf("series: %d runs, started %v, took %s", len(s.Runs), s.Started, s.Duration)
	}
	var text, md bytes.Buffer
	if err := WriteText(&text, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"FAIL 1/2  wire p99, typical 1 MiB: worst 3.00 ms (p50 1.00 ms, 5 round trips) (run 2) (want < 3 ms)",
		"PASS 2/2  filter vs SHA-256, reasoning 64 MiB: worst 1.08× (4 reasoning items) (run 1) (want ≥ 1.00× single-core SHA-256 throughput)",
	} {
		if !strings.Contains(text.String(), want) || !strings.Contains(md.String(), "- "+want) {
			t.Errorf("text or markdown lacks %q\n%s", want, text.String())
		}
	}
	if !strings.Contains(text.String(), "run 1 of 2 (2m0s): 8 of 11 bars pass; failed: ") ||
		!strings.Contains(md.String(), "| wire p99, typical 1 MiB | < 3 ms | PASS 2.50 ms | FAIL 3.00 ms | 1/2 |") {
		t.Errorf("no per-run lines:\n%s\n%s", text.String(), md.String())
	}
}

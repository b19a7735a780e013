package main

import (
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/bench"
	"github.com/continuity-dev/continuity/internal/testbin"
)

// TestBenchStrictExitCode: --strict exits 3 when any run of a series
// failed any bar, also when the other runs passed it; without --strict,
// or when every run passed every bar, the exit is 0.
func TestBenchStrictExitCode(t *testing.T) {
	bar := func(pass bool) bench.Bar {
		b := bench.Bar{Name: "wire p99, typical 1 MiB", Pass: pass, Runs: 1, WorstRun: 1}
		if pass {
			b.Passed = 1
		}
		return b
	}
	run := func(pass ...bool) *bench.Report {
		r := &bench.Report{}
		for _, p := range pass {
			r.Bars = append(r.Bars, bar(p))
		}
		r.Bars[0].Name = "filter vs SHA-256, reasoning 64 MiB"
		return r
	}
	for _, c := range []struct {
		name   string
		runs   []*bench.Report
		strict bool
		want   int
	}{
		{"one run, all pass", []*bench.Report{run(true, true)}, true, 0},
		{"one run, a bar fails", []*bench.Report{run(true, false)}, true, 3},
		{"one run, a bar fails, not strict", []*bench.Report{run(true, false)}, false, 0},
		{"three runs, all pass", []*bench.Report{run(true, true), run(true, true), run(true, true)}, true, 0},
		{"three runs, the middle one fails a bar", []*bench.Report{run(true, true), run(false, true), run(true, true)}, true, 3},
		{"three runs, the middle one fails a bar, not strict", []*bench.Report{run(true, true), run(false, true), run(true, true)}, false, 0},
	} {
		rep := c.runs[0]
		if len(c.runs) > 1 {
			rep = bench.Series(c.runs)
		}
		if got := benchExit(rep, c.strict); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}

// TestBenchRepeatFlag: --repeat below 1 is a usage error naming the flag,
// before anything is measured, and -h documents it.
func TestBenchRepeatFlag(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"0", "-2"} {
		code, out := testbin.Run(t, nil, "bench", "--repeat", n, "--out", t.TempDir())
		if code != 2 || !strings.Contains(out, "continuity bench: --repeat must be at least 1, not "+n) || strings.Contains(out, "bench: reasoning") {
			t.Errorf("--repeat %s: exit %d\n%s", n, code, out)
		}
	}
	if code, out := testbin.Run(t, nil, "bench", "-h"); code != 0 || !strings.Contains(out, "-repeat") || !strings.Contains(out, "[--repeat N]") {
		t.Errorf("bench -h: exit %d\n%s", code, out)
	}
}

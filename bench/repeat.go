package bench

import (
	"fmt"
	"time"
)

// Repeat runs the whole comparison n times, one run after the other, and
// returns the series: the last run's report with every run in Runs and
// each bar over all of them (Aggregate). A bar that passes in one run and
// fails in the next is not met, so the series passes a bar only when
// every run does. One run (n ≤ 1) is Run's report unchanged.
func Repeat(cfg Config, n int) (*Report, error) {
	if n <= 1 {
		return Run(cfg)
	}
	var runs []*Report
	for i := range n {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "bench: run %d of %d\n", i+1, n)
		}
		rep, err := Run(cfg)
		if err != nil {
			return nil, fmt.Errorf("run %d of %d: %w", i+1, n, err)
		}
		runs = append(runs, rep)
	}
	return Series(runs), nil
}

// Series makes one report of several runs: the last run's report (its
// rows, tables and notes) with Runs set, Bars over all runs, and Started
// and Duration spanning them.
func Series(runs []*Report) *Report {
	if len(runs) == 0 {
		return nil
	}
	last := *runs[len(runs)-1]
	last.Runs = runs
	last.Started = runs[0].Started
	end := runs[len(runs)-1].Started
	if d, err := time.ParseDuration(runs[len(runs)-1].Duration); err == nil {
		end = end.Add(d)
	}
	last.Duration = end.Sub(last.Started).Round(time.Second).String()
	last.Bars = Aggregate(runs)
	return &last
}

// Aggregate is each bar over the runs, in the first run's order: how many
// runs judged it and passed it, and the worst run's measurement. The worst
// run is a failing one if any failed, and among runs alike the one with
// the least room to its limit: the highest time or allocation, the lowest
// throughput ratio (Bar.HigherIsBetter), the largest added time over its
// own run's allowance. A bar missing from a run counts as failed there.
func Aggregate(runs []*Report) []Bar {
	type acc struct {
		bar   Bar // the worst run's
		runs  int
		pass  int
		worst int // index into runs
	}
	var order []string
	byName := map[string]*acc{}
	for i, rep := range runs {
		for _, b := range rep.Bars {
			a, ok := byName[b.Name]
			if !ok {
				a = &acc{bar: b, worst: i}
				byName[b.Name] = a
				order = append(order, b.Name)
			} else if worse(b, a.bar) {
				a.bar, a.worst = b, i
			}
			a.runs++
			if b.Pass {
				a.pass++
			}
		}
	}
	out := make([]Bar, 0, len(order))
	for _, name := range order {
		a := byName[name]
		b := a.bar
		b.Runs, b.Passed, b.WorstRun = len(runs), a.pass, a.worst+1
		if a.runs < len(runs) {
			b.Note = joinNote(b.Note, fmt.Sprintf("not judged in %d of %d runs", len(runs)-a.runs, len(runs)))
		}
		b.Pass = a.pass == len(runs)
		out = append(out, b)
	}
	return out
}

// worse says whether bar a (one run's) is worse than b (another run's of
// the same bar): failing beats passing, then less room to the limit.
func worse(a, b Bar) bool {
	if a.Pass != b.Pass {
		return !a.Pass
	}
	return room(a) < room(b)
}

// room is how far a bar's value is on the passing side of its limit
// (negative: how far past it).
func room(b Bar) float64 {
	if b.HigherIsBetter {
		return b.Value - b.Limit
	}
	return b.Limit - b.Value
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

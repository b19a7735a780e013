package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// columns of the size and reasoning-count tables.
var columns = []string{"case", "payload", "size", "items (reasoning)", "MB/s", "ns/item", "best", "p50", "p99",
	"allocs/op", "alloc/byte", "× SHA-256", "× encoding/json", "× filter", "× pipe copy"}

// cells renders one row in the order of columns.
func cells(r Row) []string {
	return []string{r.Case, r.Kind, FormatSize(r.Size), fmt.Sprintf("%d (%d)", r.Items, r.Reasoning),
		num(r.MBps, 0), num(r.NsPerItem, 0), dur(r.BestNs), dur(r.P50Ns), dur(r.P99Ns),
		allocCell(r, r.AllocsPerOp, 0), allocCell(r, r.AllocPerByte, 3),
		ratio(r.VsSHA256), ratio(r.VsJSON), ratio(r.VsFilter), ratio(r.VsPipe)}
}

// allocCell is an allocation figure: 0 for an in-process case that
// allocates nothing, a dash where the work is another process's.
func allocCell(r Row, v float64, prec int) string {
	if v == 0 && slices.Contains(inProcessCases, r.Case) {
		return "0"
	}
	return num(v, prec)
}

// WriteText writes the tables and bars for a terminal.
func WriteText(w io.Writer, rep *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, g := range []string{GroupSize, GroupReasoning} {
		fmt.Fprintln(tw, strings.Join(columns, "\t")+"\t")
		for _, r := range rep.Rows {
			if r.Group == g {
				fmt.Fprintln(tw, strings.Join(cells(r), "\t")+"\t")
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.Session) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "turn\thistory\tpayload\tfilter\tfilter ns/byte\twire\twire ns/byte\t")
		for _, t := range rep.Session {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.Turn, FormatSize(t.HistoryBytes), FormatSize(t.PayloadBytes),
				dur(t.FilterNs), num(t.FilterNsPerByte, 3), dur(t.WireNs), num(t.WireNsPerByte, 3))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "session growth (last turn's ns/byte over the later half's median): filter %s, wire %s\n\n",
			ratio(rep.SessionGrowth[0]), ratio(rep.SessionGrowth[1]))
	}
	if len(rep.Proxy) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(proxyColumns, "\t")+"\t")
		for _, row := range rep.Proxy {
			fmt.Fprintln(tw, strings.Join(proxyCells(row), "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if c := rep.ProxyConcurrent; c != nil {
		fmt.Fprintln(w, concurrentLine(c)+"\n")
	}
	if n := len(rep.Runs); n > 1 {
		fmt.Fprintf(w, "The tables above are the last of %d runs (every run is in bench.json's runs).\n", n)
		for i, run := range rep.Runs {
			fmt.Fprintln(w, runLine(i, run, n))
		}
		fmt.Fprintf(w, "\nBars over %d runs (worst run's measurement):\n", n)
	}
	for _, b := range rep.Bars {
		fmt.Fprintln(w, barLine(b))
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
	return nil
}

// runLine says how one run of a series fared: its bars passed and the
// names of those it failed.
func runLine(i int, run *Report, n int) string {
	var failed []string
	for _, b := range run.Bars {
		if !b.Pass {
			failed = append(failed, b.Name)
		}
	}
	s := fmt.Sprintf("run %d of %d (%s): %d of %d bars pass", i+1, n, run.Duration, len(run.Bars)-len(failed), len(run.Bars))
	if len(failed) > 0 {
		s += "; failed: " + strings.Join(failed, "; ")
	}
	return s
}

// valueText is a bar's Value in its unit.
func valueText(b Bar) string {
	if b.Value == 0 && b.Limit == 0 {
		return b.Got
	}
	switch b.Unit {
	case UnitMs:
		return strconv.FormatFloat(b.Value, 'f', 2, 64) + " ms"
	case UnitMiB:
		return strconv.FormatFloat(b.Value, 'f', 1, 64) + " MiB"
	case UnitRatio:
		if b.Value >= 10 {
			return strconv.FormatFloat(b.Value, 'f', 1, 64) + "×"
		}
		return strconv.FormatFloat(b.Value, 'f', 2, 64) + "×"
	}
	return strconv.FormatFloat(b.Value, 'g', 4, 64)
}

// proxyColumns and proxyCells render the proxy comparison.
var proxyColumns = []string{"continuity proxy", "body", "runs", "plain TTFB", "proxy TTFB", "added", "filter", "alloc/body"}

func proxyCells(r ProxyRow) []string {
	what := "vs ReverseProxy"
	if r.Front == "gemini" {
		what = "Gemini vs ReverseProxy"
	}
	return []string{what, FormatSize(r.Size), strconv.Itoa(r.Runs), dur(r.PlainTTFBNs), dur(r.ProxyTTFBNs),
		signedDur(r.AddedNs), dur(r.FilterNs), num(r.AllocPerByte, 2)}
}

// concurrentLine says what many sessions at once measured.
func concurrentLine(c *ProxyConcurrent) string {
	return fmt.Sprintf("%d sessions at once, %s bodies, %d requests a side: p99 time to first byte plain %s, proxy %s (added %s), "+
		"filter %s; bodies held at most %s of a %s budget, heap grew at most %s",
		c.Sessions, FormatSize(c.Size), c.Samples, dur(c.PlainP99Ns), dur(c.ProxyP99Ns), signedDur(c.AddedP99Ns),
		dur(c.FilterP99), FormatSize(int(c.HeldPeak)), FormatSize(int(c.Budget)), FormatSize(int(c.HeapPeak)))
}

// WriteMarkdown writes the report as a Markdown document.
func WriteMarkdown(w io.Writer, rep *Report) error {
	m := rep.Machine
	took := "run took " + rep.Duration
	n := len(rep.Runs)
	if n > 1 {
		took = fmt.Sprintf("%d runs took %s", n, rep.Duration)
	}
	fmt.Fprintf(w, "# continuity bench\n\n%s, %s/%s, %d CPUs (%s), node %s; %s.\n\n",
		m.GoVersion, m.OS, m.Arch, m.CPUs, m.CPU, m.Node, took)
	fmt.Fprintln(w, "MB/s and ns/item are taken at the best time of each case (noise from other work on the machine "+
		"only adds time); p50 and p99 are over all samples. MB/s counts payload bytes (SHA-256: bytes hashed). "+
		"Ratios are throughput ratios against the same payload's row (higher is faster).")
	of := ""
	if n > 1 {
		fmt.Fprintf(w, "\n## Bars (docs/design.md §6) over %d runs\n\n", n)
		fmt.Fprintf(w, "A bar passes only when it passes in every run; each line shows the worst run's measurement.\n\n")
		of = fmt.Sprintf(" (run %d of %d)", n, n)
	} else {
		fmt.Fprintln(w, "\n## Bars (docs/design.md §6)")
		fmt.Fprintln(w)
	}
	for _, b := range rep.Bars {
		fmt.Fprintln(w, "- "+barLine(b))
	}
	if n > 1 {
		writeRunMatrix(w, rep)
	}
	for _, g := range []struct{ group, title string }{
		{GroupSize, "By payload size"}, {GroupReasoning, "By number of reasoning items"},
	} {
		fmt.Fprintf(w, "\n## %s%s\n\n", g.title, of)
		mdRow(w, columns)
		mdRow(w, append([]string{"---", "---"}, repeat("---:", len(columns)-2)...))
		for _, r := range rep.Rows {
			if r.Group == g.group {
				mdRow(w, cells(r))
			}
		}
	}
	if len(rep.Session) > 0 {
		fmt.Fprintf(w, "\n## Long session%s\n\nEach turn: step 1 is the history (all reasoning omitted), "+
			"step 2 adds the turn's steps (new reasoning kept). Growth (last turn's ns/byte over the later half's median): "+
			"filter %s, wire %s.\n\n", of, ratio(rep.SessionGrowth[0]), ratio(rep.SessionGrowth[1]))
		mdRow(w, []string{"turn", "history", "payload", "filter", "filter ns/byte", "wire", "wire ns/byte"})
		mdRow(w, repeat("---:", 7))
		for _, t := range rep.Session {
			mdRow(w, []string{strconv.Itoa(t.Turn), FormatSize(t.HistoryBytes), FormatSize(t.PayloadBytes),
				dur(t.FilterNs), num(t.FilterNsPerByte, 3), dur(t.WireNs), num(t.WireNsPerByte, 3)})
		}
	}
	if len(rep.Proxy) > 0 {
		fmt.Fprintf(w, "\n## continuity proxy%s\n\nThe same requests through a plain httputil.ReverseProxy and through "+
			"`continuity proxy`, alternately, in this run (medians).\n\n", of)
		mdRow(w, proxyColumns)
		mdRow(w, append([]string{"---", "---"}, repeat("---:", len(proxyColumns)-2)...))
		for _, row := range rep.Proxy {
			mdRow(w, proxyCells(row))
		}
	}
	if c := rep.ProxyConcurrent; c != nil {
		fmt.Fprintf(w, "\n%s\n", concurrentLine(c))
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintln(w, "\n## Notes")
		fmt.Fprintln(w)
		for _, n := range rep.Notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
	return nil
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// writeRunMatrix writes each bar's value in every run of a series, side
// by side.
func writeRunMatrix(w io.Writer, rep *Report) {
	n := len(rep.Runs)
	fmt.Fprintf(w, "\n## Each run\n\n")
	head := []string{"bar", "want"}
	for i := range n {
		head = append(head, "run "+strconv.Itoa(i+1))
	}
	mdRow(w, append(head, "passed"))
	mdRow(w, append([]string{"---", "---"}, repeat("---:", n+1)...))
	for _, b := range rep.Bars {
		row := []string{b.Name, b.Want}
		for _, run := range rep.Runs {
			cell := "—"
			for _, rb := range run.Bars {
				if rb.Name == b.Name {
					cell = status(rb.Pass) + " " + valueText(rb)
					break
				}
			}
			row = append(row, cell)
		}
		mdRow(w, append(row, fmt.Sprintf("%d/%d", b.Passed, b.Runs)))
	}
}

func status(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
}

// barLine is one bar: its verdict and measurement, and in a series how
// many runs passed and which was worst.
func barLine(b Bar) string {
	if b.Runs > 1 {
		s := fmt.Sprintf("%s %d/%d  %s: worst %s (run %d) (want %s)", status(b.Pass), b.Passed, b.Runs, b.Name, b.Got, b.WorstRun, b.Want)
		if b.Note != "" {
			s += " — " + b.Note
		}
		return s
	}
	s := fmt.Sprintf("%s  %s: %s (want %s)", status(b.Pass), b.Name, b.Got, b.Want)
	if b.Note != "" {
		s += " — " + b.Note
	}
	return s
}

func mdRow(w io.Writer, c []string) {
	for i := range c {
		c[i] = strings.ReplaceAll(c[i], "|", `\|`)
	}
	fmt.Fprintln(w, "| "+strings.Join(c, " | ")+" |")
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// num formats a value with prec decimals; zero (not measured) is a dash.
func num(v float64, prec int) string {
	if v == 0 {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func ratio(v float64) string {
	if v == 0 {
		return "—"
	}
	if v >= 10 {
		return strconv.FormatFloat(v, 'f', 1, 64) + "×"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "×"
}

// dur formats nanoseconds in the unit that suits them.
func dur(ns int64) string {
	switch {
	case ns == 0:
		return "—"
	case ns >= 1e9:
		return strconv.FormatFloat(float64(ns)/1e9, 'f', 2, 64) + " s"
	case ns >= 1e6:
		return strconv.FormatFloat(float64(ns)/1e6, 'f', 2, 64) + " ms"
	case ns >= 1e3:
		return strconv.FormatFloat(float64(ns)/1e3, 'f', 1, 64) + " µs"
	}
	return strconv.FormatInt(ns, 10) + " ns"
}

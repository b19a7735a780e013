package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/continuity-dev/continuity/bench"
)

// benchCmd runs the performance comparison (package bench) with this very
// binary as the plugin under test, --repeat times, prints the table and
// writes it as JSON and Markdown. It exits 1 when a measurement fails and,
// with --strict, 3 when a docs/design.md §6 bar fails in any run.
func benchCmd(args []string) int {
	c := newCommand("bench")
	quick := c.Bool("quick", false, "small sizes only, for a fast check (bars are then computed at the largest size measured)")
	sizes := c.String("sizes", "", "comma-separated payload sizes, e.g. 64KiB,1MiB,64MiB (default 64KiB,1MiB,16MiB,64MiB)")
	runs := c.Int("runs", 0, "least number of samples per case (default 5, quick 3)")
	out := c.String("out", "bench-results", "directory for bench.json and bench.md")
	noNode := c.Bool("no-node", false, "skip the Node.js reference even when node is installed")
	strict := c.Bool("strict", false, "exit 3 when a docs/design.md §6 bar fails (with --repeat: fails in any run)")
	repeat := c.Int("repeat", 1, "run the whole comparison N times and report, for each bar, the worst run and how many passed")
	if code, ok := c.parse(args, 0); !ok {
		return code
	}
	cfg := bench.DefaultConfig()
	if *quick {
		cfg = bench.QuickConfig()
	}
	if *sizes != "" {
		s, err := bench.ParseSizes(*sizes)
		if err != nil {
			return c.fail(2, "%v", err)
		}
		cfg.Sizes = s
	}
	if *runs < 0 {
		return c.fail(2, "--runs must not be negative")
	}
	if *repeat < 1 {
		return c.fail(2, "--repeat must be at least 1, not %d", *repeat)
	}
	if *runs > 0 {
		cfg.Runs = *runs
	}
	cfg.NoNode = *noNode
	cfg.Log = os.Stderr
	exe, err := os.Executable()
	if err != nil {
		return c.fail(1, "cannot find this binary for the wire cases: %v", err)
	}
	cfg.Binary = exe

	rep, err := bench.Repeat(cfg, *repeat)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	if err := bench.WriteText(os.Stdout, rep); err != nil {
		return 1
	}
	if err := writeBenchFiles(*out, rep); err != nil {
		return c.fail(1, "%v", err)
	}
	fmt.Printf("\nwrote %s and %s\n", filepath.Join(*out, "bench.json"), filepath.Join(*out, "bench.md"))
	return benchExit(rep, *strict)
}

// benchExit is the exit code of a finished bench: 3 under strict when a
// bar failed in any run (a series' bar passes only when every run passed
// it), else 0.
func benchExit(rep *bench.Report, strict bool) int {
	if !strict {
		return 0
	}
	for _, b := range rep.Bars {
		if !b.Pass || b.Passed < b.Runs {
			return 3
		}
	}
	return 0
}

// writeBenchFiles writes bench.json and bench.md into dir.
func writeBenchFiles(dir string, rep *bench.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(*bytes.Buffer, *bench.Report) error{
		"bench.json": func(b *bytes.Buffer, r *bench.Report) error { return bench.WriteJSON(b, r) },
		"bench.md":   func(b *bytes.Buffer, r *bench.Report) error { return bench.WriteMarkdown(b, r) },
	} {
		var buf bytes.Buffer
		if err := write(&buf, rep); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

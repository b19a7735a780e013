package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/continuity-dev/continuity/bench"
)

// benchCmd runs the performance comparison (package bench) with this very
// binary as the plugin under test, prints the table and writes it as JSON
// and Markdown. It exits 1 when a measurement fails and, with --strict,
// 3 when a docs/design.md §6 bar fails.
func benchCmd(args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "small sizes only, for a fast check (bars are then computed at the largest size measured)")
	sizes := fs.String("sizes", "", "comma-separated payload sizes, e.g. 64KiB,1MiB,64MiB (default 64KiB,1MiB,16MiB,64MiB)")
	runs := fs.Int("runs", 0, "least number of samples per case (default 5, quick 3)")
	out := fs.String("out", "bench-results", "directory for bench.json and bench.md")
	noNode := fs.Bool("no-node", false, "skip the Node.js reference even when node is installed")
	strict := fs.Bool("strict", false, "exit 3 when a docs/design.md §6 bar fails")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "continuity bench: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg := bench.DefaultConfig()
	if *quick {
		cfg = bench.QuickConfig()
	}
	if *sizes != "" {
		s, err := bench.ParseSizes(*sizes)
		if err != nil {
			fmt.Fprintf(os.Stderr, "continuity bench: %v\n", err)
			return 2
		}
		cfg.Sizes = s
	}
	if *runs < 0 {
		fmt.Fprintln(os.Stderr, "continuity bench: --runs must not be negative")
		return 2
	}
	if *runs > 0 {
		cfg.Runs = *runs
	}
	cfg.NoNode = *noNode
	cfg.Log = os.Stderr
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "continuity bench: cannot find this binary for the wire cases: %v\n", err)
		return 1
	}
	cfg.Binary = exe

	rep, err := bench.Run(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "continuity bench: %v\n", err)
		return 1
	}
	if err := bench.WriteText(os.Stdout, rep); err != nil {
		return 1
	}
	if err := writeBenchFiles(*out, rep); err != nil {
		fmt.Fprintf(os.Stderr, "continuity bench: %v\n", err)
		return 1
	}
	fmt.Printf("\nwrote %s and %s\n", filepath.Join(*out, "bench.json"), filepath.Join(*out, "bench.md"))
	if *strict {
		for _, b := range rep.Bars {
			if !b.Pass {
				return 3
			}
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

package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/continuity-dev/continuity/fixtures/scenario"
	"github.com/continuity-dev/continuity/fixtures/scenarios"
)

// defaultDemo is the scenario the README starts with.
const defaultDemo = "abba-on"

// demo plays one of the shipped scenarios on the embedded host: the host
// double linked into this binary starts this binary's serve as its child,
// and a supplier double on loopback answers like the Responses API where
// account switches matter. It needs no network, no account and no host.
func demo(args []string) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	name := fs.String("scenario", defaultDemo, "the scenario to run (see --list)")
	list := fs.Bool("list", false, "list the shipped scenarios and exit")
	bypass := fs.Bool("bypass", false, "send every request without continuity, to see the supplier reject it")
	logs := fs.Bool("log", false, "copy the plugin's log to stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "continuity demo: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *list {
		for _, n := range scenarios.Names() {
			sc, err := shipped(n)
			if err != nil {
				fmt.Fprintf(os.Stderr, "continuity demo: %v\n", err)
				return 1
			}
			fmt.Printf("%-22s %s\n", n, sc.Description)
		}
		return 0
	}
	sc, err := shipped(*name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "continuity demo: %v\n", err)
		return 2
	}
	return play(os.Stdout, sc, "", *bypass, *logs)
}

// shipped parses an embedded scenario.
func shipped(name string) (*scenario.Scenario, error) {
	b, err := scenarios.Read(name)
	if err != nil {
		return nil, err
	}
	return scenario.Parse(name+".json", b)
}

package main

import (
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
	c := newCommand("demo")
	name := c.String("scenario", defaultDemo, "the scenario to run (see --list)")
	list := c.Bool("list", false, "list the shipped scenarios and exit")
	bypass := c.Bool("bypass", false, "send every request without continuity, to see the supplier reject it")
	logs := c.Bool("log", false, "copy the plugin's log to stderr")
	if code, ok := c.parse(args, 0); !ok {
		return code
	}
	if *list {
		for _, n := range scenarios.Names() {
			sc, err := shipped(n)
			if err != nil {
				return c.fail(1, "%v", err)
			}
			fmt.Printf("%-22s %s\n", n, sc.Description)
		}
		return 0
	}
	sc, err := shipped(*name)
	if err != nil {
		return c.fail(2, "%v", err)
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

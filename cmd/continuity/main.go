// Command continuity is the continuity plugin process and its tools.
//
//	continuity serve     the plugin over stdio (what hosts start)
//	continuity demo      an account-switch scenario on the embedded host
//	continuity scenario  run a scenario file against the real binary
//	continuity bench     the performance comparison
//	continuity proxy     the local proxy for Codex, opencode, pi, the Gemini CLI and others
//	continuity policy    set a session's policy or the new-session default
package main

import (
	"fmt"
	"os"
)

const usage = `usage: continuity <command> [flags]

commands:
  bench      measure the filter and the wire against SHA-256, encoding/json and Node.js (--quick, --sizes, --runs, --out)
  configure  point codex, opencode or pi at the proxy, keeping its comments; --dry-run shows the diff, --undo restores the file
  demo       run the A → B → B → A account-switch scenario on the embedded host (--list, --scenario NAME)
  doctor     check the data directory, its database, the proxy, the upstream and the clients' configurations
  page       print the status page's address with its key (--data-dir)
  policy     show or set a session's visible-history continuation policy: policy [--data-dir DIR] [SESSION [on|off|default]], or --default on|off
  proxy      the local proxy for Codex CLI, opencode, pi, the Gemini CLI and any Responses client (--upstream [NAME=]URL, --listen, --data-dir, --default, --rule)
  run        run codex or opencode through the data directory's proxy, starting one if none runs (run [--upstream URL] codex [ARGS...])
  scenario   run or validate your own scenario file (scenario run FILE)
  serve      serve the plugin protocol on stdin/stdout (hosts start this)
  version    print the version, commit and Go version (also --version)
`

// commands are the subcommands by name; each returns its exit code.
var commands = map[string]func(args []string) int{
	"serve":     serve,
	"demo":      demo,
	"scenario":  scenarioCmd,
	"proxy":     proxyCmd,
	"policy":    policyCmd,
	"page":      pageCmd,
	"bench":     benchCmd,
	"configure": configureCmd,
	"run":       runCmd,
	"doctor":    doctorCmd,
	"version": func([]string) int {
		fmt.Println(version())
		return 0
	},
	"help": func([]string) int {
		fmt.Print(usage)
		return 0
	},
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	name := os.Args[1]
	switch name {
	case "-h", "--help":
		name = "help"
	case "-version", "--version", "-V":
		name = "version"
	}
	run, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "continuity: unknown command %q\n\n%s", name, usage)
		os.Exit(2)
	}
	os.Exit(run(os.Args[2:]))
}

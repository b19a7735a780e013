package main

import (
	"fmt"
	"strings"
)

// help is what a subcommand's -h prints around its flags: the synopsis
// lines and examples a person copies from.
type help struct {
	synopsis []string
	summary  string
	examples []string
}

// helps holds every subcommand's help by the name newCommand is given;
// TestEveryCommandHasHelp holds it to the commands table.
var helps = map[string]help{
	"serve": {
		synopsis: []string{"continuity serve [--data-dir DIR] [--log-level LEVEL] [--max-frame-bytes N] [--projection-budget TOKENS]"},
		summary:  "Serves the plugin protocol (docs/protocol.md) on stdin and stdout; hosts start this as a child. Logs go to stderr as JSON lines.",
		examples: []string{
			"continuity serve --data-dir ~/.local/state/continuity",
			"continuity scenario run my-switch.json   # drive serve through a scenario instead of by hand",
		},
	},
	"proxy": {
		synopsis: []string{"continuity proxy --upstream [NAME=]URL... [--listen 127.0.0.1:PORT] [--data-dir DIR] [--default on|off] [--rule provenance|turn] [--log-format text|json|auto]"},
		summary:  "The local proxy for Codex CLI, opencode, pi, the Gemini CLI and any Responses client: for each session whose policy is on, it omits the encrypted reasoning (for Gemini, the thought signatures) not recorded as issued to the upstream and account the request uses.",
		examples: []string{
			"continuity proxy --upstream https://api.openai.com",
			"continuity proxy --upstream https://api.openai.com --listen 127.0.0.1:9000 --log-format json",
			"continuity proxy --upstream openai=https://api.openai.com --upstream gemini=https://generativelanguage.googleapis.com",
		},
	},
	"page": {
		synopsis: []string{"continuity page [--data-dir DIR]"},
		summary:  "Prints the status page's address with its key, the same across restarts of the proxy on this data directory.",
		examples: []string{"continuity page"},
	},
	"configure": {
		synopsis: []string{"continuity configure [--dry-run] [--proxy URL] [--config FILE] codex|opencode|pi", "continuity configure --undo [--force] codex|opencode|pi"},
		summary: `Points the client's configuration at the proxy, keeping every other setting
and comment; saves the file as it was beside it (FILE.continuity-backup).
  codex     $CODEX_HOME/config.toml or ~/.codex/config.toml: model_provider and [model_providers.continuity]
  opencode  ~/.config/opencode/opencode.jsonc or opencode.json: provider.openai.options.baseURL
  pi        ~/.pi/agent/models.json: providers.openai.baseUrl`,
		examples: []string{"continuity configure --dry-run codex", "continuity configure codex", "continuity configure --undo codex"},
	},
	"run": {
		synopsis: []string{"continuity run [--upstream URL] [--data-dir DIR] codex|opencode [ARGS...]"},
		summary: `Runs the client through the data directory's proxy, starting one if none
runs; ARGS go to the client. The client's configuration files are not
changed. A proxy started here stops after the last continuity run ends; if
none can start, the client is not started.`,
		examples: []string{
			"continuity run --upstream https://api.openai.com codex",
			`continuity run codex exec "fix the failing test"`,
			`continuity run opencode run "explain this repository"`,
		},
	},
	"doctor": {
		synopsis: []string{"continuity doctor [--data-dir DIR]"},
		summary: `Checks the data directory and its database, the proxy registered for it,
the upstream it forwards to, and whether Codex, opencode and pi are
pointed at it. Exits 1 when it finds a problem, each with its fix.`,
		examples: []string{"continuity doctor"},
	},
	"policy": {
		synopsis: []string{
			"continuity policy [--data-dir DIR] [--create] SESSION on|off|default",
			"continuity policy [--data-dir DIR] SESSION",
			"continuity policy [--data-dir DIR]",
			"continuity policy [--data-dir DIR] --default on|off",
		},
		summary: "Sets or prints a session's visible-history continuation policy as the proxy applies it, lists the sessions seen with no SESSION, or sets the default of sessions first seen from now on (one default, shared by the plugin, pi and the proxy).",
		examples: []string{
			"continuity policy ses_0123 on",
			"continuity policy --default off",
		},
	},
	"demo": {
		synopsis: []string{"continuity demo [--scenario NAME] [--bypass] [--log]", "continuity demo --list"},
		summary:  "Runs a shipped account-switch scenario on the embedded host double against a supplier double; needs no network and no account.",
		examples: []string{"continuity demo", "continuity demo --list", "continuity demo --scenario NAME --bypass"},
	},
	"bench": {
		synopsis: []string{"continuity bench [--quick] [--sizes LIST] [--runs N] [--repeat N] [--out DIR] [--no-node] [--strict]"},
		summary: "Measures the filter and the wire against SHA-256, encoding/json and Node.js, and continuity proxy against a plain reverse proxy; " +
			"checks the docs/design.md §6 bars and writes bench.json and bench.md. With --repeat N each bar shows how many of the N runs passed and the worst run.",
		examples: []string{"continuity bench --quick", "continuity bench --sizes 1MiB,16MiB --out /tmp/bench", "continuity bench --repeat 5 --strict"},
	},
	"scenario run": {
		synopsis: []string{"continuity scenario run [--bypass] [--binary PATH] [--log] FILE"},
		summary:  "Plays a scenario file (docs/scenarios.md) against the real binary: host double, supplier double, every step checked.",
		examples: []string{"continuity scenario run my-switch.json", "continuity scenario run --bypass my-switch.json"},
	},
	"scenario validate": {
		synopsis: []string{"continuity scenario validate FILE"},
		summary:  "Checks a scenario file against its schema without running it; each error names the field (a JSON pointer) and what to change.",
		examples: []string{"continuity scenario validate my-switch.json"},
	},
}

// usage prints name's help and then its flags, as -h shows them.
func (c command) usage() {
	out := c.Output()
	h, ok := helps[c.name]
	if !ok {
		fmt.Fprintf(out, "usage: continuity %s [flags]\n\nflags:\n", c.name)
		c.PrintDefaults()
		return
	}
	fmt.Fprintf(out, "usage: %s\n", strings.Join(h.synopsis, "\n       "))
	fmt.Fprintf(out, "\n%s\n\nflags:\n", h.summary)
	c.PrintDefaults()
	fmt.Fprintf(out, "\nexamples:\n  %s\n", strings.Join(h.examples, "\n  "))
}

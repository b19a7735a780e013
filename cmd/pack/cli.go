package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// cliPackage is the npm package of the continuity command.
const cliPackage = "@continuity-dev/continuity"

// launcher is the package's bin/continuity.js: it finds this platform's
// package and runs its binary, passing exit status and signals.
//
//go:embed npm/continuity.js
var launcher []byte

// cliManifest is the package.json of cliPackage: one command, the
// launcher, and optionalDependencies on every platform package at the
// version, so npm installs the matching binary and nothing runs a script.
func (e extension) cliManifest() ([]byte, error) {
	deps := make(map[string]string, len(targets))
	for _, t := range targets {
		deps[t.packageName()] = e.version
	}
	m := map[string]any{
		"name":                 cliPackage,
		"version":              e.version,
		"description":          "continuity: keeps an agent's session working across account switches (a local Responses proxy for Codex CLI, opencode and pi) and the continuity plugin process",
		"license":              e.license,
		"bin":                  map[string]string{"continuity": "bin/continuity.js"},
		"files":                []string{"bin/", "README.md", "LICENSE"},
		"engines":              map[string]string{"node": ">=18"},
		"optionalDependencies": deps,
	}
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), err
}

// cliReadme is the package's page.
func (e extension) cliReadme() []byte {
	return fmt.Appendf(nil, "# %s\n\nThe `continuity` command (%s): the binary for your platform comes in the optional dependency %s<platform>-<arch>.\n\n"+
		"```sh\nnpx %s proxy --upstream https://api.openai.com\nnpm install -g %s && continuity --version\n```\n",
		cliPackage, e.version, platformScope, cliPackage, cliPackage)
}

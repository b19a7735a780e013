// Package uicontract holds the JSON Schemas (draft 2020-12) of every wire
// message and view in docs/protocol.md, and the user-facing texts, as embedded
// files. The plugin validates Remote and tool arguments against them before
// acting, and tests validate every message the plugin sends.
//
// A schema's name is its path under schemas/ without ".json", for example
// "remote/githubCopilotSessionContinuation/set.args". Schemas refer to each
// other with relative $refs.
//
// The directory stays ui-contract/ while the package is uicontract, on
// purpose. The directory is the contract's public path, read as files by
// more than Go: the project's brief names it ui-contract/; the pi
// extension's texts test reads ../../ui-contract/texts; docs/protocol.md,
// the README and the schemas' own descriptions link ui-contract/…; hosts
// and UI code in other languages take the schemas from there. The Go
// package has to live in that same directory, because go:embed reaches
// only files at or below the package's own directory: a package in a
// uicontract/ directory would need a second copy of the schemas (which
// drifts) or a symlink (which module zips and Windows checkouts drop). And
// a Go package name cannot hold the hyphen. So the package takes the
// directory's name without it, as gopkg.in/yaml.v3 is package yaml, and
// importers write the alias uicontract, which goimports also writes for a
// path whose last element is not the package name: it keeps the name
// visible at every import.
package uicontract

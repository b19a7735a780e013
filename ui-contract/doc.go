// Package uicontract holds the JSON Schemas (draft 2020-12) of every wire
// message and view in docs/protocol.md, and the user-facing texts, as embedded
// files. The plugin validates Remote and tool arguments against them before
// acting, and tests validate every message the plugin sends.
//
// A schema's name is its path under schemas/ without ".json", for example
// "remote/githubCopilotSessionContinuation/set.args". Schemas refer to each
// other with relative $refs.
//
// The directory is ui-contract/ (the name the project's brief gives the
// contract, which hosts and UI code outside Go read too) while the package
// is uicontract: a Go package name cannot hold a hyphen, so importers name
// it with the alias uicontract, the one place where package and directory
// differ.
package uicontract

package main

import (
	"runtime/debug"
	"strings"

	"github.com/continuity-dev/continuity/server"
)

// stampedCommit is the commit the release tooling (cmd/pack) stamps with
// -ldflags "-X main.stampedCommit=…": a binary built from a staged copy of
// the tree carries no VCS information of its own. The version itself is
// never stamped; server.Version is its one source.
var stampedCommit string

// version is the line `continuity --version` prints: the version hosts see
// in initialize, the protocol, and where the binary came from — the commit
// (stamped, else the build's VCS information, else the module version
// `go install …@vX.Y.Z` recorded) and the Go toolchain that built it.
func version() string {
	commit, module, goVersion := buildOrigin()
	var b strings.Builder
	b.WriteString("continuity " + server.Version + " (protocol " + server.ProtocolVersion + ")")
	if module != "" {
		b.WriteString("\nmodule   " + module)
	}
	b.WriteString("\ncommit   " + commit)
	b.WriteString("\ngo       " + goVersion)
	return b.String()
}

// buildOrigin reads the binary's build information.
func buildOrigin() (commit, module, goVersion string) {
	commit, goVersion = stampedCommit, "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if commit == "" {
			commit = "unknown"
		}
		return commit, "", goVersion
	}
	goVersion = info.GoVersion
	if v := info.Main.Version; v != "" && v != "(devel)" {
		module = info.Main.Path + " " + v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case commit != "":
	case revision != "":
		commit = revision
		if modified == "true" {
			commit += " (with uncommitted changes)"
		}
	case module != "":
		commit = "the module version above"
	default:
		commit = "unknown (built without version control information)"
	}
	return commit, module, goVersion
}

package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
	"github.com/continuity-dev/continuity/server"
)

// TestEveryCommandHasHelp: each subcommand's -h opens with a synopsis and
// ends with examples, from helps; no command falls back to the bare flag
// list.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	for name := range commands {
		if name == "version" || name == "help" || name == "scenario" {
			continue
		}
		if _, ok := helps[name]; !ok {
			t.Errorf("command %s has no entry in helps", name)
		}
	}
	for name := range helps {
		code, out := testbin.Run(t, nil, append(strings.Fields(name), "-h")...)
		if code != 0 || !strings.HasPrefix(out, "usage: continuity "+name) || !strings.Contains(out, "\nexamples:\n  continuity ") {
			t.Errorf("%s -h: exit %d\n%s", name, code, out)
		}
	}
}

// TestVersion: --version and version print the version hosts see, the
// protocol, a commit line and the Go toolchain of the build.
func TestVersion(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--version", "version", "-V"} {
		code, out := testbin.Run(t, nil, arg)
		want := "continuity " + server.Version + " (protocol " + server.ProtocolVersion + ")\n"
		if code != 0 || !strings.HasPrefix(out, want) || !strings.Contains(out, "\ncommit   ") || !strings.Contains(out, "\ngo       "+runtime.Version()+"\n") {
			t.Errorf("%s: exit %d\n%s", arg, code, out)
		}
	}
}

// TestProxyFlagErrors: a missing --upstream is named as missing, a bad
// one as bad, and an unknown --log-format as such, before anything
// listens.
func TestProxyFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "continuity proxy: --upstream is required: the supplier's base URL, e.g. --upstream https://api.openai.com"},
		{[]string{"--upstream", "ftp://x"}, `"ftp://x" is not an http or https URL`},
		{[]string{"--upstream", "http://127.0.0.1:9", "--log-format", "xml"}, `--log-format must be text, json or auto, not "xml"`},
	} {
		code, out := testbin.Run(t, nil, append([]string{"proxy", "--listen", "127.0.0.1:0", "--data-dir", dir}, c.args...)...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", c.args, code, c.want, out)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// TestCommandFlags: every subcommand parses its flags the same way — -h
// prints its flags and is not an error, an unknown flag or a stray
// argument exits 2 with a message naming the command.
func TestCommandFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd  []string
		flag string // one of its flags, which -h must list
	}{
		{[]string{"serve"}, "-max-frame-bytes"},
		{[]string{"proxy"}, "-upstream"},
		{[]string{"policy"}, "-data-dir"},
		{[]string{"demo"}, "-scenario"},
		{[]string{"bench"}, "-sizes"},
		{[]string{"scenario", "run"}, "-binary"},
		{[]string{"scenario"}, "validate"},
		{[]string{"configure"}, "-dry-run"},
		{[]string{"run"}, "-upstream"},
		{[]string{"doctor"}, "-data-dir"},
	} {
		name := strings.Join(c.cmd, " ")
		if code, out := testbin.Run(t, nil, append(c.cmd, "-h")...); code != 0 || !strings.Contains(out, c.flag) {
			t.Errorf("%s -h: exit %d\n%s", name, code, out)
		}
		if code, out := testbin.Run(t, nil, append(c.cmd, "--no-such-flag")...); code != 2 || !strings.Contains(out, "-no-such-flag") {
			t.Errorf("%s --no-such-flag: exit %d\n%s", name, code, out)
		}
	}
	for _, args := range [][]string{
		{"serve", "stray"},
		{"proxy", "--upstream", "http://127.0.0.1:9", "stray"},
		{"policy", "--data-dir", t.TempDir(), "session", "on", "stray"},
		{"demo", "stray"},
		{"bench", "stray"},
		{"scenario", "validate", "file.json", "stray"},
		{"configure", "--dry-run", "codex", "stray"},
		{"doctor", "stray"},
	} {
		want := "continuity " + args[0] + ": unexpected argument \"stray\""
		if args[0] == "scenario" {
			want = "continuity scenario validate: unexpected argument \"stray\""
		}
		if code, out := testbin.Run(t, nil, args...); code != 2 || !strings.Contains(out, want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", args, code, want, out)
		}
	}
	if code, out := testbin.Run(t, nil, "no-such-command"); code != 2 || !strings.Contains(out, `unknown command "no-such-command"`) {
		t.Errorf("an unknown command: exit %d\n%s", code, out)
	}
}

// TestPolicyUsesThePluginsDataDir: without --data-dir, `continuity policy`
// writes where the plugin keeps its data (the user state directory's
// continuity/), so a policy set on the command line is the plugin's.
func TestPolicyUsesThePluginsDataDir(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	if code, out := testbin.Run(t, env, "policy", "--default", "off"); code != 0 {
		t.Fatalf("policy --default off: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(state, "continuity", "settings")); err != nil {
		t.Fatalf("the policy was not written under XDG_STATE_HOME/continuity: %v", err)
	}
	if code, out := testbin.Run(t, nil, "policy", "--data-dir", filepath.Join(state, "continuity"), "some-session"); code != 0 ||
		out != "some-session: off (default; no proxy on this data directory has seen it)\n" {
		t.Fatalf("read back through --data-dir: exit %d %q", code, out)
	}
}

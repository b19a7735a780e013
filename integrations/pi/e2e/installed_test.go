package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// filterTwoTurns loads the extension (by extArgs, or as pi installed it)
// for the first time, then runs a turn as acct-A and one as acct-B in one
// session: every request is accepted with the plugin's bytes, and the
// switch's first request had acct-A's reasoning omitted — the plugin ran.
func (r *rig) filterTwoTurns(extra []string, extArgs ...string) {
	r.t.Helper()
	args := func(more ...string) []string { return append(append([]string{}, extArgs...), more...) }
	if res := r.piRunWith("", extra, args("--no-session", "-p", "/continuity")...); !strings.Contains(res.stderr, "Use the new-session default: On") {
		r.t.Fatalf("first load of the installed extension: %v\n%s", res.err, res.stderr)
	}
	for i, acct := range []string{"acct-A", "acct-B"} {
		if res := r.piRunWith(acct, extra, args("-c", "-p", "list the files")...); res.err != nil || strings.TrimSpace(res.stdout) == "" {
			r.t.Fatalf("turn %d as %s: %v\nstdout:\n%s\nstderr:\n%s", i+1, acct, res.err, res.stdout, res.stderr)
		}
	}
	reqs, trs := r.sup.Requests(), r.traces()
	if len(reqs) != 4 || len(trs) != 4 {
		r.t.Fatalf("supplier saw %d requests, the extension traced %d; want 4", len(reqs), len(trs))
	}
	for i, req := range reqs {
		if req.Status != 200 || sha(req.Body) != trs[i].SHA256 {
			r.t.Fatalf("request %d: %d %s; supplier bytes %s, plugin output %s", i+1, req.Status, req.Problem, sha(req.Body), trs[i].SHA256)
		}
	}
	if switched := trs[2]; switched.Outcome != "filtered" || switched.Omitted.Items == 0 {
		r.t.Fatalf("the first request after the switch to B: %+v, want acct-A's reasoning omitted", switched)
	}
}

// piRun runs pi with args as acct, with CONTINUITY_BIN unset and a PATH on
// which no continuity is found (the directories of the machine's PATH
// that hold none), so the binary can only come from the platform package.
func (r *rig) piRun(acct string, args ...string) result {
	r.t.Helper()
	return r.piRunWith(acct, nil, args...)
}

// piRunWith is piRun with extra variables in the environment.
func (r *rig) piRunWith(acct string, extra []string, args ...string) result {
	r.t.Helper()
	var env []string
	for _, kv := range r.env(acct) {
		switch {
		case strings.HasPrefix(kv, "CONTINUITY_BIN="):
			continue
		case strings.HasPrefix(kv, "PATH="):
			kv = "PATH=" + pathWithoutContinuity()
		}
		env = append(env, kv)
	}
	env = append(env, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.line.node, append([]string{r.line.cli}, args...)...)
	cmd.Dir, cmd.Env = r.workDir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		r.t.Fatalf("pi %s %v timed out; stderr:\n%s", r.line.name, args, errb.String())
	}
	return result{stdout: out.String(), stderr: errb.String(), err: err}
}

func pathWithoutContinuity() string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "continuity")); err == nil || dir == "" {
			continue
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// binaryTrace is the trace line saying which binary the extension started.
type binaryTrace struct {
	Binary string `json:"binary"`
	Source string `json:"source"`
}

func (r *rig) binaries() []binaryTrace {
	r.t.Helper()
	b, err := os.ReadFile(r.trace)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []binaryTrace
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var bt binaryTrace
		if err := json.Unmarshal([]byte(line), &bt); err != nil {
			r.t.Fatalf("trace line %q: %v", line, err)
		}
		if bt.Binary != "" {
			out = append(out, bt)
		}
	}
	return out
}

// wantBinary: every plugin the extension started was bin, found in the
// platform package.
func (r *rig) wantBinary(bin string) {
	r.t.Helper()
	bins := r.binaries()
	if len(bins) == 0 {
		r.t.Fatalf("the extension traced no binary")
	}
	for _, b := range bins {
		if b.Binary != bin || b.Source != "package" {
			r.t.Fatalf("the extension ran %s (from %s), want %s from the platform package", b.Binary, b.Source, bin)
		}
	}
}

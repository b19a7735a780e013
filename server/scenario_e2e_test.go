package server_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/scenario"
	"github.com/continuity-dev/continuity/fixtures/scenarios"
	"github.com/continuity-dev/continuity/internal/testbin"
)

// scenarioFiles lists fixtures/scenarios/*.json and checks that the demo
// embeds exactly these, so no shipped scenario goes untested.
func scenarioFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../fixtures/scenarios/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	slices.Sort(names)
	if !slices.Equal(names, scenarios.Names()) {
		t.Fatalf("files %v, embedded %v", names, scenarios.Names())
	}
	return files
}

// scenarioPlay parses and runs one scenario file against the real binary,
// printing the run into the test log.
func scenarioPlay(t *testing.T, file string, bypass bool) *scenario.Report {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(file, b)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := scenario.Run(ctxT(t), sc, scenario.Options{Binary: testbin.Path(t), DataDir: t.TempDir(), Bypass: bypass,
		Observe: func(rec scenario.Record) { scenario.Print(&out, rec) }})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("run:\n%s", out.String())
		}
	})
	if err != nil {
		t.Fatalf("the scenario could not finish: %v", err)
	}
	if strings.Contains(out.String(), "gAAAA") {
		t.Fatal("the printed run shows ciphertext")
	}
	return rep
}

// TestScenarioFiles runs every shipped scenario; every expectation must
// hold and the plugin must break no schema or protocol rule.
func TestScenarioFiles(t *testing.T) {
	for _, file := range scenarioFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			rep := scenarioPlay(t, file, false)
			for _, f := range rep.Failures {
				t.Error(f)
			}
			if rep.Checks == 0 || rep.Accepted == 0 {
				t.Fatalf("checked %d expectations, %d requests accepted", rep.Checks, rep.Accepted)
			}
		})
	}
}

// TestScenarioBypassIsRejected plays every scenario with continuity left
// out: the client's own bytes replay reasoning issued to the other
// account, and the supplier double rejects them as foreign — so each
// scenario fails, and for that reason.
func TestScenarioBypassIsRejected(t *testing.T) {
	for _, file := range scenarioFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			rep := scenarioPlay(t, file, true)
			if rep.Passed() {
				t.Fatal("the scenario passed without continuity")
			}
			foreign := 0
			for _, rec := range rep.Records {
				for _, ex := range rec.Exchanges {
					if !ex.Bypassed {
						t.Fatalf("%s: request %s went through continuity", rec.Where(), ex.RequestID)
					}
					if ex.Status == 400 && strings.HasPrefix(ex.Problem, "foreign rs_") {
						foreign++
					}
				}
			}
			if foreign == 0 {
				t.Fatalf("no request was rejected for foreign ciphertext; failures: %v", rep.Failures)
			}
		})
	}
}

// TestScenarioABBABypassNamesTheForeignItem pins the A-B-B-A case: the
// first request after the switch to B replays acct-A's rs_1 and is refused
// with 400 invalid_encrypted_content, where continuity's run is accepted.
func TestScenarioABBABypassNamesTheForeignItem(t *testing.T) {
	rep := scenarioPlay(t, "../fixtures/scenarios/abba-on.json", true)
	for _, rec := range rep.Records {
		if ex, ok := rec.Final(); ok && rec.Turn == 2 && rec.Step == 1 {
			if ex.Verdict() != "rejected:foreign" || ex.Problem != "foreign rs_1" || ex.Status != 400 {
				t.Fatalf("turn 2 without continuity: %s (%s)", ex.Verdict(), ex.Problem)
			}
			return
		}
	}
	t.Fatal("no record of turn 2, step 1")
}

// TestScenarioCommand drives the binary's own commands: a host team's file
// runs with `scenario run`, a malformed one is refused naming the member,
// and `demo --list` shows every shipped scenario.
func TestScenarioCommand(t *testing.T) {
	bin := testbin.Path(t)
	run := func(args ...string) (string, string, int) {
		cmd := exec.CommandContext(ctxT(t), bin, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}

	out, errs, code := run("scenario", "run", "../fixtures/scenarios/restart.json")
	if code != 0 || !strings.Contains(out, "PASS restart") || !strings.Contains(out, "plugin restarted") {
		t.Fatalf("scenario run: exit %d\n%s\n%s", code, out, errs)
	}

	dir := t.TempDir()
	for _, c := range []struct{ name, doc, member string }{
		{"negative-tools", `{"name":"x","steps":[{"session":{"id":"s1"}},{"account":"acct-A"},{"turn":{"user":"hi","toolSteps":-1}}]}`, "/steps/2/turn/toolSteps"},
		{"unknown-step", `{"name":"x","steps":[{"session":{"id":"s1"}},{"tunr":{}}]}`, "/steps/1"},
		{"turn-first", `{"name":"x","steps":[{"turn":{"user":"hi"}}]}`, "/steps/0/turn"},
		{"unknown-account", `{"name":"x","steps":[{"session":{"id":"s1"}},{"account":"acct-C"}]}`, "/steps/1/account/id"},
	} {
		f := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(f, []byte(c.doc), 0o600); err != nil {
			t.Fatal(err)
		}
		out, errs, code := run("scenario", "run", f)
		if code != 2 || !strings.Contains(errs, c.member) || !strings.Contains(errs, f) || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit 2 naming %s", c.name, code, errs, out, c.member)
		}
	}

	out, _, code = run("demo", "--list")
	for _, n := range scenarios.Names() {
		if code != 0 || !strings.Contains(out, n) {
			t.Fatalf("demo --list (exit %d) lacks %s:\n%s", code, n, out)
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1","host":{"name":"pipe","version":"1"},"capabilities":{}}}` + "\n"

// TestServeInputEndingDuringActivation is `echo '{…initialize…}' |
// continuity serve`: the input ends while activation runs. The answer
// says so — never that the data directory or the store is unusable — and
// the same directory then activates when the input stays open.
func TestServeInputEndingDuringActivation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for range 3 {
		cmd := exec.Command(testbin.Path(t), "serve", "--data-dir", dir)
		cmd.Stdin = strings.NewReader(initializeLine)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("serve: %v\n%s", err, stderr.String())
		}
		act := activationOf(t, out)
		if strings.Contains(string(out)+stderr.String(), "STORAGE_UNAVAILABLE") || strings.Contains(stderr.String(), "data directory unusable") {
			t.Fatalf("the input's end was reported as a storage failure:\n%s\n%s", out, stderr.String())
		}
		if act.State != "ready" && (act.Code != "COPILOT_CONTINUATION_INITIALIZATION_FAILED" ||
			!strings.Contains(act.Reason, "the host's input ended (stdin closed)") || !strings.Contains(act.Reason, "keep the plugin's stdin open")) {
			t.Fatalf("activation %+v, want ready or the input's end named", act)
		}
	}

	cmd := exec.Command(testbin.Path(t), "serve", "--data-dir", dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Write([]byte(initializeLine)); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	_ = cmd.Wait()
	if act := activationOf(t, line); act.State != "ready" {
		t.Fatalf("with stdin open the same data directory activated %+v", act)
	}
}

type activationResult struct {
	State, Code, Reason string
}

func activationOf(t *testing.T, reply []byte) activationResult {
	t.Helper()
	var m struct {
		Result struct {
			Activation activationResult `json:"activation"`
		} `json:"result"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(reply), &m); err != nil || m.Result.Activation.State == "" {
		t.Fatalf("initialize answered %q (%v)", reply, err)
	}
	return m.Result.Activation
}

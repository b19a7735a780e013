package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Tokens of the supplier double's two accounts.
const (
	tokenA = "sk-test-aaaaaaaaaaaaaaaaaaaaaaaa"
	tokenB = "sk-test-bbbbbbbbbbbbbbbbbbbbbbbb"
)

// codexHome is one home of the real Codex CLI (testclients/, installed by
// scripts/setup.d/20-clients.sh) whose provider "sup" speaks Responses
// without WebSockets, retries, updates or telemetry.
type codexHome struct {
	home, work, bin string
}

func newCodexHome(t *testing.T) *codexHome {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", "testclients", "node_modules", ".bin", "codex")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("codex is not installed (%v): run scripts/setup.d/20-clients.sh", err)
	}
	c := &codexHome{home: t.TempDir(), work: t.TempDir(), bin: bin}
	conf := `model = "gpt-5.4"
model_provider = "sup"
model_reasoning_effort = "low"
check_for_update_on_startup = false

[model_providers.sup]
name = "sup"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
env_key = "SUP_KEY"
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[otel]
exporter = "none"
`
	if err := os.WriteFile(filepath.Join(c.home, "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// try runs one codex exec turn against base with token; resume continues
// the last thread.
func (c *codexHome) try(t *testing.T, base, token string, resume bool) (string, error) {
	t.Helper()
	args := []string{"exec", "--skip-git-repo-check", "--sandbox", "read-only", "-c", `model_providers.sup.base_url="` + base + `/v1"`}
	if resume {
		args = append(args, "resume", "--last")
	}
	cmd := exec.Command(c.bin, append(args, "say hello")...)
	cmd.Dir = c.work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "NO_COLOR=1", "HOME=" + c.home, "CODEX_HOME=" + c.home, "SUP_KEY=" + token}
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	return out.String(), err
}

func (c *codexHome) turn(t *testing.T, base, token string, resume bool) {
	t.Helper()
	if out, err := c.try(t, base, token, resume); err != nil {
		t.Fatalf("codex through %s: %v\n%s", base, err, out)
	}
}

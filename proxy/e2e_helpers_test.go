package proxy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/supplier"
	"github.com/continuity-dev/continuity/internal/syncbuf"
	"github.com/continuity-dev/continuity/internal/testbin"
	"github.com/continuity-dev/continuity/proxy"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// running is a `continuity proxy` process of a test.
type running struct {
	URL  string // http://127.0.0.1:PORT
	Page string // the status page's address with the secret fragment
	// Remote are the page's addresses for other machines, printed for a
	// wildcard listener.
	Remote  []string
	Secret  string
	DataDir string
	// Stop ends the process (SIGTERM) and waits for it; the test's cleanup
	// calls it too.
	Stop   func()
	PID    int // the process, for its memory (/proc/PID/status)
	stderr *syncbuf.Buffer
}

// Log returns what the proxy logged so far.
func (r *running) Log() string { return r.stderr.String() }

// startProxy runs the real binary in front of upstream on a random loopback
// port and stops it (SIGTERM, then waits) when the test ends. An empty
// upstream leaves --upstream to extra (named upstreams).
func startProxy(t *testing.T, upstream, dataDir string, extra ...string) *running {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	args := []string{"proxy", "--listen", "127.0.0.1:0", "--data-dir", dataDir}
	if upstream != "" {
		args = append(args, "--upstream", upstream)
	}
	args = append(args, extra...)
	cmd := exec.Command(testbin.Path(t), args...)
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &running{DataDir: dataDir, stderr: stderr, PID: cmd.Process.Pid}
	r.Stop = sync.OnceFunc(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("proxy exited: %v\n%s", err, stderr.String())
		}
	})
	t.Cleanup(r.Stop)
	sc := bufio.NewScanner(out)
	for r.Page == "" && sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "continuity proxy listening on "); ok {
			r.URL, _, _ = strings.Cut(rest, " ")
		}
		if rest, ok := strings.CutPrefix(line, "status page from other machines: "); ok {
			r.Remote = append(r.Remote, rest)
		}
		if rest, ok := strings.CutPrefix(line, "status page: "); ok {
			r.Page = rest
			_, r.Secret, _ = strings.Cut(rest, "#k=")
		}
	}
	if r.URL == "" || r.Secret == "" {
		t.Fatalf("the proxy did not print its addresses: %v\n%s", sc.Err(), stderr.String())
	}
	go func() { // drains stdout until the process exits; owned by cmd.Wait above
		for sc.Scan() {
		}
	}()
	return r
}

// startSupplier serves the supplier double with accounts acct-A and acct-B
// and real-looking tokens for them.
func startSupplier(t *testing.T) *supplier.Server {
	t.Helper()
	srv, err := supplier.Start(supplier.Config{Accounts: []supplier.Account{
		{Name: "acct-A", Token: "sk-test-aaaaaaaaaaaaaaaaaaaaaaaa", Key: "key-A-0123"},
		{Name: "acct-B", Token: "sk-test-bbbbbbbbbbbbbbbbbbbbbbbb", Key: "key-B-4567"},
	}, ReasoningWithoutID: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// Tokens of the accounts of startSupplier.
const (
	tokenA = "sk-test-aaaaaaaaaaaaaaaaaaaaaaaa"
	tokenB = "sk-test-bbbbbbbbbbbbbbbbbbbbbbbb"
)

// clientBin returns the path of a real client installed by
// scripts/setup.d/20-clients.sh, failing the test when it is missing.
func clientBin(t *testing.T, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "testclients", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed (%v): run scripts/setup.d/20-clients.sh (installs testclients/ from its lockfile)", name, err)
	}
	return p
}

// runClient runs a client command with env and a deadline, returning its
// combined output; a failure or timeout fails the test.
func runClient(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := tryClient(t, dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
	}
	return out
}

// tryClient is runClient for a run that may fail: it returns the error; a
// timeout still fails the test.
func tryClient(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(120 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s %v timed out\n%s", filepath.Base(name), args, out.String())
	}
	return "", nil
}

// baseEnv is a minimal environment for a client: PATH and the given vars,
// nothing of the developer's own configuration.
func baseEnv(vars ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "NO_COLOR=1"}, vars...)
}

// gjsonHas reports whether a request body has a top-level member name.
func gjsonHas(body []byte, name string) bool { return gjson.GetBytes(body, name).Exists() }

// pageState reads the status page's API with the run's secret.
func pageState(t *testing.T, px *running) proxy.State {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, px.URL+"/continuity/state", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(proxy.SecretHeader, px.Secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st proxy.State
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || resp.StatusCode != 200 {
		t.Fatalf("state: %d %v", resp.StatusCode, err)
	}
	return st
}

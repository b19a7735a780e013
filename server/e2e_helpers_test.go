package server_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/fixtures/host/hosttest"
	"github.com/continuity-dev/continuity/internal/testbin"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// startHost runs the real binary under the host double with validation of
// every message it sends; the test fails on any schema violation.
func startHost(t *testing.T, cfg host.Config) *host.Host {
	t.Helper()
	cfg.Binary = testbin.Path(t)
	cfg.Validate = true
	cfg.StderrJSON = true
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	// Conversations that send their own initialize give no dataDir: keep
	// the plugin's default state directory inside the test too.
	cfg.Env = append([]string{"XDG_STATE_HOME=" + t.TempDir()}, cfg.Env...)
	h, err := host.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.Close()
		hosttest.AssertClean(t, h)
		if t.Failed() {
			t.Logf("plugin stderr:\n%s", h.StderrTail())
		}
	})
	return h
}

// initialized starts a host and initializes the plugin.
func initialized(t *testing.T, cfg host.Config, caps host.Capabilities) *host.Host {
	t.Helper()
	h := startHost(t, cfg)
	res, err := h.Initialize(ctxT(t), caps)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.Activation.State != "ready" {
		t.Fatalf("activation = %+v", res.Activation)
	}
	return h
}

// skipUnderRace skips a test of a resource bound in the -race pass of
// .ci/run: a race-built plugin's memory and speed are the race runtime's
// (shadow memory, several times slower), not the plugin's. The ordinary
// pass of the same run checks the bound on the binary hosts start.
func skipUnderRace(t *testing.T, bound string) {
	t.Helper()
	if testbin.Race() {
		t.Skip(bound + " is checked on the ordinary build, not the race-built one")
	}
}

// ctxT bounds one step of a test so a hang fails instead of stalling.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dataCode returns data.code of a JSON-RPC error.
func dataCode(e *host.RPCError) string {
	if e == nil {
		return ""
	}
	var d struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return d.Code
}

// killHard kills the process pid at once (SIGKILL on unix), the way a
// crash ends a plugin: nothing it defers runs.
func killHard(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

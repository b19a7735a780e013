//go:build unix

package server_test

import (
	"syscall"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
)

// The host owns the plugin's life: a SIGINT (a terminal's Ctrl-C reaching
// the whole process group) does not stop it.
func TestSIGINTIsIgnored(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	if err := syscall.Kill(h.PID(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if _, rerr, err := h.Call(ctxT(t), "remote/invoke", map[string]any{"namespace": "continuity", "method": "notices", "args": map[string]any{"agentId": "s1"}}); err != nil || rerr != nil {
		t.Fatalf("after SIGINT: %v %v", err, rerr)
	}
	if err := h.Shutdown(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if code, err := h.WaitContext(ctxT(t)); err != nil || code != 0 {
		t.Fatalf("exit %d, %v", code, err)
	}
}

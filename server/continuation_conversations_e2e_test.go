package server_test

import (
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/fixtures/host/hosttest"
)

// TestContinuationConversations replays the continuation wire conversations
// in testdata/continuation (topic and phase change, context pressure and
// recall of what it left out, a replayed call, a cycle attempt, an
// unreadable source) against the real binary. The scenario runner in
// fixtures/scenario speaks account switches only, so these are txtar
// conversations. initialize in a txtar carries no dataDir, so each plugin
// gets its own state directory through XDG_STATE_HOME. Run with -update to
// rewrite the expectations.
func TestContinuationConversations(t *testing.T) {
	hosttest.RunConversations(t, "testdata/continuation/*.txtar", func(t *testing.T) *host.Host {
		return startHost(t, host.Config{Env: []string{"XDG_STATE_HOME=" + t.TempDir()}})
	})
}

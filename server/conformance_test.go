package server_test

import (
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/fixtures/host/hosttest"
)

// TestWireConformance replays the txtar conversations in testdata/wire
// against the real binary: the exact messages sent and the messages the
// plugin must answer with. Run with -update to rewrite the expectations.
func TestWireConformance(t *testing.T) {
	hosttest.RunConversations(t, "testdata/wire/*.txtar", func(t *testing.T) *host.Host {
		return startHost(t, host.Config{})
	})
}

package continuation

import (
	"context"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// downHost is a host whose session/create fails outright (nothing is
// created), the way an unreachable or overloaded host answers.
type downHost struct{ *fakeHost }

func (downHost) Create(context.Context, hostapi.CreateSession) (hostapi.Created, error) {
	return hostapi.Created{}, diag.New("host-unavailable", "try later")
}

// TestFailedCreatesDoNotUseUpTheRateLimit: continuations whose host
// create failed (no successor exists; their edges stay pending) are not
// continuations "made or under way". Once the host is back, a new
// continuation of the same predecessor must not be rate limited for the
// rest of the window because of them.
func TestFailedCreatesDoNotUseUpTheRateLimit(t *testing.T) {
	e := newEnv(t, Options{MaxPerSession: 2, MaxChain: 5, RateWindow: 10 * time.Minute})
	seedPredecessor(e.host, "A")
	o := e.opts
	o.Now = func() time.Time { return e.now }
	down, err := Open(context.Background(), e.db, downHost{e.host}, e.host, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, callID := range []string{"c1", "c2"} {
		res, err := down.Tool(context.Background(), ToolCall{SessionID: "A", Turn: turnOf(callID), CallID: callID,
			Name: ToolContinueSession, Arguments: []byte(argsFile(t, "minimal"))})
		got := errorCode(err)
		if err == nil {
			got = code(t, res)
		}
		if got != diag.HostCreateFailed {
			t.Fatalf("%s with the host down: %q", callID, got)
		}
	}
	e.now = e.now.Add(time.Minute) // the host is back
	if got := code(t, e.call("A", "c3", ToolContinueSession, argsFile(t, "minimal"))); got != "" {
		t.Fatalf("first successful continuation of A after two failed creates: %q (no successor of A exists)", got)
	}
}

package turns

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/continuity-dev/continuity/hostapi"
)

// pagedLog is a host session log that answers reads a few events at a time
// (complete:false when cut), like a host with a read limit.
type pagedLog struct {
	events []hostapi.Event
	limit  int
	reads  int
}

func (p *pagedLog) Create(context.Context, hostapi.CreateSession) (hostapi.Created, error) {
	return hostapi.Created{}, nil
}

func (p *pagedLog) Read(_ context.Context, _ string, from, to int64) (hostapi.Events, error) {
	p.reads++
	out := hostapi.Events{Complete: true}
	for _, ev := range p.events {
		if ev.Seq < from || ev.Seq > to {
			continue
		}
		if len(out.Events) == p.limit {
			out.Complete = false
			break
		}
		out.Events = append(out.Events, ev)
	}
	return out, nil
}

func logOf(types ...string) *pagedLog {
	p := &pagedLog{limit: 2}
	for i, typ := range types {
		ev := hostapi.Event{Type: typ, Seq: int64(i + 1)}
		if acct, ok := accountEvent(typ); ok {
			ev.Type = "account/selected"
			ev.Data, _ = json.Marshal(map[string]string{"accountId": acct})
		}
		p.events = append(p.events, ev)
	}
	return p
}

// accountEvent reads "acct:<id>" as an account/selected event.
func accountEvent(typ string) (string, bool) {
	if len(typ) > 5 && typ[:5] == "acct:" {
		return typ[5:], true
	}
	return "", false
}

func TestAccountSwitchAfterRestartReadsTheLog(t *testing.T) {
	r := newRig(t)
	log := logOf("session/created", "acct:acct-A", "turn/start", "turn/end", "acct:acct-A", "turn/start", "turn/end", "acct:acct-B")
	r.Manager.opt.Sessions = log
	ctx := context.Background()
	// The history was made with acct-A (the account/selected after the
	// last turn is the switch being asked about, not history).
	v, err := r.AccountSwitch(ctx, "s1", "acct-B")
	if err != nil {
		t.Fatal(err)
	}
	if !v.Pause || len(v.Choices) != 3 {
		t.Fatalf("after a restart, switching acct-A → acct-B must pause; got %+v", v)
	}
	if log.reads < 3 {
		t.Fatalf("the log was read in %d pages; a cut page must be followed", log.reads)
	}
	if v, _ := r.AccountSwitch(ctx, "s1", "acct-A"); v.Pause || v.Reason != "sameAccount" {
		t.Fatalf("switching back to the history's account: %+v", v)
	}
}

func TestAccountSwitchWithoutTurnsHasNoHistory(t *testing.T) {
	r := newRig(t)
	r.Manager.opt.Sessions = logOf("session/created", "acct:acct-A")
	if v, err := r.AccountSwitch(context.Background(), "s1", "acct-B"); err != nil || v.Pause || v.Reason != "noHistory" {
		t.Fatalf("got %+v %v", v, err)
	}
}

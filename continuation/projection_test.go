package continuation

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

func decodeProjection(t *testing.T, raw []byte) Projection {
	t.Helper()
	var p Projection
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func kinds(p Projection) string {
	var k []string
	for _, s := range p.Sections {
		if s.Tier != "" {
			k = append(k, s.Kind+":"+s.Tier)
		} else {
			k = append(k, s.Kind)
		}
	}
	return strings.Join(k, ",")
}

func TestInitiatingMessageByteForByte(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	r := e.mustContinue("A", "call-1", argsFile(t, "minimal"))
	raw := e.host.contextOf(r.SuccessorID)
	if !bytes.Contains(raw, []byte(`{"kind":"initiating_message","text":`+initiatingToken+`,"sessionId":"A","eventId":"6","turn":1}`)) {
		t.Fatalf("the host's token is not in the context verbatim:\n%s", raw)
	}
	p := decodeProjection(t, raw)
	var want, got string
	json.Unmarshal([]byte(initiatingToken), &want)
	for _, s := range p.Sections {
		if s.Kind == "initiating_message" {
			json.Unmarshal(s.Text, &got)
		}
	}
	if got != want {
		t.Fatalf("decoded initiating message %q, want %q", got, want)
	}
}

func TestProjectionOrderAndLineageBlock(t *testing.T) {
	e := newEnv(t, Options{RecentEvents: 1, ExcerptEvents: 4})
	seedPredecessor(e.host, "A")
	args := withArgs(t, "basic", func(a map[string]any) {
		a["sources"] = []any{map[string]any{"kind": "resource", "url": "seed://r", "relevance": "r"}}
	})
	r := e.mustContinue("A", "call-1", args)
	p := decodeProjection(t, e.host.contextOf(r.SuccessorID))
	if got, want := kinds(p), "control,lineage,state,initiating_message,handoff,source:pinned,source:recent,source:excerpt,omitted"; got != want {
		t.Fatalf("sections %s, want %s", got, want)
	}
	var block string
	json.Unmarshal(p.Sections[1].Text, &block)
	want := "<session_continuation>\n  <origin session=\"A\" />\n  <predecessor session=\"A\" edge=\"" + r.EdgeID +
		"\" />\n  <initiating_event id=\"6\" />\n  <projection manifest=\"" + r.ManifestID + "\" />\n</session_continuation>"
	if block != want {
		t.Fatalf("lineage block\n%s\nwant\n%s", block, want)
	}
	if rec := p.Sections[6]; len(rec.Events) != 1 || rec.Events[0].EventID != "3" {
		t.Fatalf("recent window %+v", rec.Events)
	}
}

func TestHandoffCannotAuthorLineage(t *testing.T) {
	e := newEnv(t, Options{})
	seedPredecessor(e.host, "A")
	if c := code(t, e.call("A", "call-1", ToolContinueSession, argsFile(t, "injected"))); c != diag.HandoffInvalid {
		t.Fatalf("code %q", c)
	}
	if e.host.creates != 0 {
		t.Fatal("the host was asked to create a session")
	}
}

// A budget too small for anything optional still carries control, state,
// the initiating message and the handoff, and lists every source it left
// out with the reason; recall then returns those sources exactly.
func TestTinyBudgetListsEveryOmittedSource(t *testing.T) {
	e := newEnv(t, Options{TokenBudget: 1})
	seedPredecessor(e.host, "A")
	args := withArgs(t, "basic", func(a map[string]any) {
		a["sources"] = append(a["sources"].([]any), map[string]any{"kind": "session_event", "sessionId": "A", "eventId": "5", "relevance": "other"})
	})
	r := e.mustContinue("A", "call-1", args)
	p := decodeProjection(t, e.host.contextOf(r.SuccessorID))
	if got, want := kinds(p), "control,lineage,state,initiating_message,handoff,omitted"; got != want {
		t.Fatalf("sections %s, want %s", got, want)
	}
	m, _ := e.svc.Manifest(context.Background(), r.ManifestID)
	if len(m.Included) != 0 || !m.Tokens.OverBudget || m.Tokens.Used != p.Tokens.Used {
		t.Fatalf("included %d tokens %+v", len(m.Included), m.Tokens)
	}
	want := []string{"pinned/session_events/A/1-4", "pinned/session_event/A/3", "pinned/resource/seed://docs/compaction",
		"pinned/memory/notes/compaction.md", "pinned/session_event/A/5"} // A 2–3 are cold inside A 1–4, listed once
	var got []string
	for _, it := range selectedOmitted(m.Omitted) {
		if it.Reason != ReasonBudget {
			t.Fatalf("omitted without the budget reason: %+v", it)
		}
		ref := it.URL + it.Path
		if it.SessionID != "" {
			ref = it.SessionID + "/" + it.FromEventID + "-" + it.ToEventID
			if it.EventID != "" {
				ref = it.SessionID + "/" + it.EventID
			}
		}
		got = append(got, it.Tier+"/"+it.Kind+"/"+ref)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("omitted\n%v\nwant\n%v", got, want)
	}
	if len(p.Sections[5].Omitted) != len(m.Omitted) {
		t.Fatal("the context's omitted handles differ from the manifest")
	}
	rec := as[RecallResult](t, e.call(r.SuccessorID, "r1", ToolSessionRecall, `{"sessionId":"A","eventId":"5"}`).Structured)
	if len(rec.Events) != 1 || string(rec.Events[0].Data) != `{"turn":1}` || rec.Events[0].Version != "manifest" {
		t.Fatalf("recall of an omitted source %+v", rec)
	}
}

func TestTakeFittingMatchesRealSize(t *testing.T) {
	h := newFakeHost()
	seedPredecessor(h, "A")
	all := h.sessions["A"].events
	base := Section{Kind: "source", Tier: TierPinned, SessionID: "A", Relevance: "x"}
	for room := 0; room < 400; room += 7 {
		for _, newest := range []bool{false, true} {
			inc, rest := takeFitting(base, all, room, newest)
			if len(inc)+len(rest) != len(all) {
				t.Fatalf("room %d lost events", room)
			}
			if len(inc) > 0 && EstimateTokens(marshal(rangeSection(base, inc))) > room {
				t.Fatalf("room %d: chosen section does not fit", room)
			}
			if len(rest) > 0 {
				more := append(append([]hostapi.Event{}, inc...), rest[0])
				if !newest && EstimateTokens(marshal(rangeSection(base, more))) <= room {
					t.Fatalf("room %d: one more event would have fit", room)
				}
			}
		}
	}
}

func TestRunsExceptSplitsAroundListedEvents(t *testing.T) {
	evs := func(seqs ...int64) []hostapi.Event {
		out := make([]hostapi.Event, len(seqs))
		for i, q := range seqs {
			out[i] = hostapi.Event{Seq: q}
		}
		return out
	}
	show := func(runs [][]hostapi.Event) string {
		var b strings.Builder
		for _, r := range runs {
			b.WriteString("[")
			for i, ev := range r {
				if i > 0 {
					b.WriteString(" ")
				}
				b.WriteString(eventID(ev.Seq))
			}
			b.WriteString("]")
		}
		return b.String()
	}
	for _, c := range []struct {
		in   []hostapi.Event
		skip []int64
		want string
	}{
		{evs(1, 2, 3), nil, "[1 2 3]"},
		{evs(1, 2, 3), []int64{1, 2, 3}, ""},
		{evs(1, 2, 5, 7, 9), []int64{5}, "[1 2][7 9]"},
		{evs(1, 2, 5, 7, 9), []int64{1, 9}, "[2 5 7]"},
		{nil, []int64{1}, ""},
	} {
		skip := map[int64]bool{}
		for _, q := range c.skip {
			skip[q] = true
		}
		if got := show(runsExcept(c.in, skip)); got != c.want {
			t.Errorf("runsExcept(%s, %v) = %s, want %s", show([][]hostapi.Event{c.in}), c.skip, got, c.want)
		}
	}
}

// TestListedEventDoesNotBlockRecent: an event a cited range already lists
// as omitted is not offered again as a recent exchange, so it does not
// stop a smaller, older message from fitting, and it is listed once.
func TestListedEventDoesNotBlockRecent(t *testing.T) {
	msg := func(seq int64, n int) hostapi.Event {
		return hostapi.Event{Seq: seq, Type: "assistant/message", Time: json.RawMessage("1"),
			Data: marshal(map[string]string{"text": strings.Repeat("w", n)})}
	}
	small, big4, big5 := msg(3, 40), msg(4, 8000), msg(5, 8000)
	c := compile(compileInput{manifestID: "m", edgeID: "e", predecessorID: "A", originID: "A",
		initiating:   hostapi.Event{Seq: 8, Type: "user/message", Data: json.RawMessage(`{"text":"go"}`)},
		handoff:      Handoff{Purpose: "p", CurrentRequest: "r"},
		sources:      []Source{{Kind: KindSessionEvents, SessionID: "A", FromEventID: "4", ToEventID: "5", Relevance: "x"}},
		sourceEvents: [][]hostapi.Event{{big4, big5}}, recent: []hostapi.Event{small, big4, big5}, budget: 3000})
	var inc, om []string
	for _, it := range c.included {
		inc = append(inc, it.Tier+":"+it.FromEventID+"-"+it.ToEventID)
	}
	for _, it := range c.omitted {
		om = append(om, it.Tier+":"+it.FromEventID+"-"+it.ToEventID)
	}
	if strings.Join(inc, " ") != "pinned:4-4 recent:3-3" || strings.Join(om, " ") != "pinned:5-5" {
		t.Fatalf("included %v omitted %v", inc, om)
	}
}

// TestBudgetPaysForTheOmittedList (issue 16: budget 600 gave 811 tokens):
// the handles of what was left out are paid from the budget, so a
// projection that omits something still fits.
func TestBudgetPaysForTheOmittedList(t *testing.T) {
	for _, budget := range []int{600, 620, 650} {
		e := newEnv(t, Options{TokenBudget: budget})
		seedPredecessor(e.host, "A")
		r := e.mustContinue("A", "call-1", argsFile(t, "basic"))
		p := decodeProjection(t, e.host.contextOf(r.SuccessorID))
		m, err := e.svc.Manifest(context.Background(), r.ManifestID)
		if err != nil {
			t.Fatal(err)
		}
		if len(selectedOmitted(m.Omitted)) == 0 {
			t.Fatalf("budget %d: nothing omitted, the test needs a tighter budget", budget)
		}
		if p.Tokens.OverBudget || p.Tokens.Used > budget {
			t.Errorf("budget %d: used %d (over %v)", budget, p.Tokens.Used, p.Tokens.OverBudget)
		}
	}
}

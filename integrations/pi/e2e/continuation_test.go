package e2e_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// piSession is one pi session file: its header id and continuity's events
// as the extension keeps them in it.
type piSession struct {
	path   string
	id     string
	parent string
	events []struct {
		Type      string          `json:"type"`
		Seq       int             `json:"seq"`
		Data      json.RawMessage `json:"data"`
		SurfaceOp json.RawMessage `json:"surfaceOp"`
	}
	messages []string // roles of pi's message entries, in order
}

func (r *rig) sessions() map[string]*piSession {
	r.t.Helper()
	files, err := filepath.Glob(filepath.Join(r.agentDir, "sessions", "*", "*.jsonl"))
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[string]*piSession{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			r.t.Fatal(err)
		}
		s := &piSession{path: f}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var e struct {
				Type          string          `json:"type"`
				ID            string          `json:"id"`
				ParentSession string          `json:"parentSession"`
				CustomType    string          `json:"customType"`
				Data          json.RawMessage `json:"data"`
				Message       struct {
					Role string `json:"role"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			switch {
			case e.Type == "session":
				s.id, s.parent = e.ID, e.ParentSession
			case e.Type == "custom" && e.CustomType == "continuity-event":
				s.events = append(s.events, struct {
					Type      string          `json:"type"`
					Seq       int             `json:"seq"`
					Data      json.RawMessage `json:"data"`
					SurfaceOp json.RawMessage `json:"surfaceOp"`
				}{})
				_ = json.Unmarshal(e.Data, &s.events[len(s.events)-1])
			case e.Type == "message":
				s.messages = append(s.messages, e.Message.Role)
			}
		}
		_ = fh.Close()
		out[s.id] = s
	}
	return out
}

// seqOf is the seq of the first event of type typ at or after from.
func (s *piSession) seqOf(t *testing.T, typ string, from int) int {
	t.Helper()
	for _, ev := range s.events {
		if ev.Type == typ && ev.Seq >= from {
			return ev.Seq
		}
	}
	t.Fatalf("session %s has no %s event after seq %d", s.id, typ, from)
	return 0
}

// TestRPCContinuationCreatesASuccessor: the model calls continue_session
// (forwarded to the plugin as tool/call); the plugin creates the successor
// through session/create, which the extension serves with a queued
// command and ctx.newSession; the successor starts with the projection and
// its run answers the initiating message. pi 1.x runs the queued command
// by itself; pi 0.73 cannot run a command an extension queues, so the
// person is told to run it, finds it in the editor, and sends it.
func TestRPCContinuationCreatesASuccessor(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			r.activate()
			if res := r.print("acct-A", "Rethink compaction for long sessions."); res.err != nil {
				t.Fatalf("turn 1: %v\n%s", res.err, res.stderr)
			}
			all := r.sessions()
			if len(all) != 1 {
				t.Fatalf("want one session after turn 1, got %d", len(all))
			}
			var pred *piSession
			for _, s := range all {
				pred = s
			}
			from := pred.seqOf(t, "user/message", 0)
			to := pred.seqOf(t, "assistant/message", from)
			args, _ := json.Marshal(map[string]any{
				"reason": "topic_change",
				"title":  "Plan the v2 migration",
				"handoff": map[string]any{
					"purpose":        "Plan the v2 migration",
					"currentRequest": "Plan the v2 migration step by step",
					"decisions":      []string{"continuation instead of rolling summaries"},
					"nextActions":    []string{"list the migration steps"},
				},
				"sources": []any{map[string]any{"kind": "session_events", "sessionId": pred.id,
					"fromEventId": strconv.Itoa(from), "toEventId": strconv.Itoa(to), "relevance": "why compaction is being replaced"}},
			})
			r.sup.Script(supplier.Answer{Kind: supplier.ToolCall, Tool: "continue_session", Arguments: string(args)})
			const initiating = "Now let’s plan the \"v2\" migration in a fresh session."
			sent := len(r.sup.Requests())
			p := r.rpc("acct-A")
			p.prompt(initiating)
			if line.name == "0.73.1" {
				// The notice comes while the predecessor's turn runs.
				n := p.ui("notify", "The successor session is ready")
				msg := str(n, "message")
				cmd := msg[strings.LastIndexByte(msg, '\n')+1:]
				if !strings.HasPrefix(cmd, "/continuity-successor ") {
					t.Fatalf("the successor notice does not end with the command to run: %q", msg)
				}
				// The command waits in the editor; the person sends it.
				editor := p.await("set_editor_text", func(m map[string]any) bool {
					return str(m, "type") == "extension_ui_request" && str(m, "method") == "set_editor_text"
				})
				if str(editor, "text") != cmd {
					t.Fatalf("the editor holds %q, want the command %q", str(editor, "text"), cmd)
				}
				p.agentEnd() // the predecessor's turn, ended by continue_session
				p.prompt(cmd)
			} else {
				p.agentEnd()
			}
			p.agentEnd() // the successor's first run

			all = r.sessions()
			var succ *piSession
			for id, s := range all {
				if id != pred.id {
					succ = s
				}
			}
			if len(all) != 2 || succ == nil {
				t.Fatalf("want the predecessor and one successor, got %d sessions", len(all))
			}
			if succ.parent == "" {
				t.Fatalf("the successor's header names no parent session")
			}
			// The successor's first request carries the initiating message
			// verbatim inside the projection, and its run answers.
			var first []byte
			for _, req := range r.sup.Requests()[sent:] {
				if req.Status != 200 {
					t.Fatalf("request rejected: %d %s", req.Status, req.Problem)
				}
				if first == nil && strings.Contains(string(req.Body), "session_continuation") {
					first = req.Body
				}
			}
			if first == nil {
				t.Fatalf("no request carried the projection")
			}
			quoted, _ := json.Marshal(initiating)
			if !strings.Contains(string(first), strings.Trim(string(quoted), `"`)) {
				i := strings.Index(string(first), "v2")
				t.Fatalf("the successor's first request lacks the initiating message verbatim: %.300s", first[max(0, i-150):])
			}
			if n := len(succ.messages); n < 2 || succ.messages[n-1] != "assistant" {
				t.Fatalf("the successor did not answer: messages %v", succ.messages)
			}

			// The views, as a person reads them in the successor.
			p.prompt("/continuity lineage")
			lineage := str(p.ui("notify", "Continuation path"), "message")
			for _, want := range []string{"[Origin]", "→ “Plan the v2 migration” [This session] — Topic changed"} {
				if !strings.Contains(lineage, want) {
					t.Errorf("/continuity lineage lacks %q:\n%s", want, lineage)
				}
			}
			p.prompt("/continuity handoff")
			handoff := str(p.ui("notify", "Handoff: "), "message")
			for _, want := range []string{
				"Handoff: “Plan the v2 migration” — Topic changed",
				"Continued at: ",
				"Purpose: Plan the v2 migration",
				"Current request: Plan the v2 migration step by step",
				"Decisions:\n  - continuation instead of rolling summaries",
				"Next actions:\n  - list the migration steps",
				"Initiating message (event ",
				"Loaded into the successor:\n  - ",
				pred.id + " #" + strconv.Itoa(from) + "–#" + strconv.Itoa(to),
				"“why compaction is being replaced”",
				"Linked but not loaded:\n  - ",
				"not selected for the successor",
			} {
				if !strings.Contains(handoff, want) {
					t.Errorf("/continuity handoff lacks %q:\n%s", want, handoff)
				}
			}
			if strings.Contains(handoff, "{") {
				t.Errorf("/continuity handoff shows raw JSON or an unfilled text:\n%s", handoff)
			}
		})
	}
}

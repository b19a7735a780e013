package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// history is the pane with its scrollback: pi draws its transcript in the
// terminal's normal buffer, so what scrolled up is still there.
func (p *tuiPi) history() string {
	out, _ := exec.Command("tmux", "-L", p.socket, "capture-pane", "-p", "-J", "-S", "-5000", "-t", "pi").Output()
	return string(out)
}

// waitHistory returns the pane and its scrollback once they show want.
func (p *tuiPi) waitHistory(want string) string {
	p.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		s := p.history()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen and its scrollback never showed %q; they show:\n%s", want, s)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// sendEditor presses Enter until the editor no longer holds text (a
// command put there, which may open pi's completion menu first).
func (p *tuiPi) sendEditor(text string) {
	p.t.Helper()
	for i := 0; i < 10; i++ {
		if !strings.Contains(editorText(p.screen()), text) {
			return
		}
		p.keys(false, "Enter")
		time.Sleep(time.Second)
	}
	p.t.Fatalf("the editor still holds %q:\n%s", text, p.screen())
}

// scriptContinuation makes the double's next answer a continue_session
// call that continues pred's first exchange in "Plan the v2 migration".
func scriptContinuation(t *testing.T, r *rig, pred *piSession) {
	t.Helper()
	from := pred.seqOf(t, "user/message", 0)
	to := pred.seqOf(t, "assistant/message", from)
	args, _ := json.Marshal(map[string]any{
		"reason": "topic_change",
		"title":  "Plan the v2 migration",
		"handoff": map[string]any{
			"purpose":        "Plan the v2 migration",
			"currentRequest": "Plan the v2 migration step by step",
			"nextActions":    []string{"list the migration steps"},
		},
		"sources": []any{map[string]any{"kind": "session_events", "sessionId": pred.id,
			"fromEventId": strconv.Itoa(from), "toEventId": strconv.Itoa(to), "relevance": "why compaction is being replaced"}},
	})
	r.sup.Script(supplier.Answer{Kind: supplier.ToolCall, Tool: "continue_session", Arguments: string(args)})
}

// continuedInTUI runs a session's first turn, then a second in pi's TUI
// (a window rows high) that continues it in “Plan the v2 migration”, and
// returns once the successor, which starts with its banner, has answered.
// On pi 0.73 the card says what to press, and the command is sent.
func continuedInTUI(t *testing.T, line piLine, rows int) (*rig, *tuiPi, *piSession) {
	t.Helper()
	r := newRig(t, line)
	r.activate()
	if res := r.print("acct-A", "Rethink compaction for long sessions."); res.err != nil {
		t.Fatalf("turn 1: %v\n%s", res.err, res.stderr)
	}
	var pred *piSession
	for _, s := range r.sessions() {
		pred = s
	}
	scriptContinuation(t, r, pred)
	// Tall enough for the successor's whole first exchange (the
	// projection is its first message), banner included: pi redraws a
	// switched-to session and the terminal's scrollback may not keep it.
	p := r.tuiRows("acct-A", rows)
	p.wait("Visible-history continuation") // the footer: the extension has started
	p.typeLine("Now let's plan the v2 migration in a fresh session.")

	// pi 1.x creates the successor at once, and the redraw of a
	// switched-to session clears the terminal's scrollback (both
	// lines' TUI write ESC[3J): the card it ends the predecessor with
	// is read after back (TestTmuxContinuationCardBannerBack). pi 0.73
	// waits for the person.
	if line.name == "0.73.1" {
		p.waitHistory("Continued in “Plan the v2 migration”")
		s := p.waitHistory("Press Enter to open the continuation")
		if !strings.Contains(s, "/continuity-successor ") {
			t.Fatalf("the card does not show the command to send:\n%s", s)
		}
		p.sendEditor("/continuity-successor ")
	}

	// The successor: the banner, then its run answers.
	s := p.waitHistory("Continued from “")
	for _, want := range []string{"Topic changed", "Back to previous: /continuity back", "View handoff: /continuity handoff"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the banner lacks %q:\n%s", want, s)
		}
	}
	var succ *piSession
	deadline := time.Now().Add(90 * time.Second)
	for succ == nil || len(succ.messages) < 2 || succ.messages[len(succ.messages)-1] != "assistant" {
		if time.Now().After(deadline) {
			t.Fatalf("the successor never answered")
		}
		time.Sleep(500 * time.Millisecond)
		for id, x := range r.sessions() {
			if id != pred.id {
				succ = x
			}
		}
	}
	return r, p, pred
}

// TestTmuxContinuationCardBannerBack drives a continuation in the real pi
// TUI of both lines: the predecessor ends with the transition card
// (successor title, reason, what was carried, the open and inspect
// commands — on pi 0.73, which cannot open the successor by itself, what
// to press); the successor starts with the banner (back, view handoff);
// `/continuity back` opens the predecessor, which shows the card, whose
// handoff command shows the handoff (and back there says there is no
// previous session); writing
// there shows the return offer and sends nothing; "Open the current
// continuation" goes there with the message waiting in the editor.
func TestTmuxContinuationCardBannerBack(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r, p, _ := continuedInTUI(t, line, 150)
			p.typeLine("/continuity back")
			p.wait("Open continuation: /continuity open")
			s := p.wait("Inspect handoff: /continuity handoff ")
			if !strings.Contains(s, "Continued in “Plan the v2 migration”") {
				t.Fatalf("the predecessor does not end with the card of its continuation:\n%s", s)
			}
			if !strings.Contains(s, "Carried the current request, the handoff and 2 source references.") {
				t.Fatalf("the card does not say what was carried (the two sources the projection names):\n%s", s)
			}
			// Inspect handoff: the command the card names shows the handoff of its edge.
			m := regexp.MustCompile(`Inspect handoff: (/continuity handoff \S+)`).FindStringSubmatch(s)
			if m == nil {
				t.Fatalf("the card names no handoff command:\n%s", s)
			}
			p.typeLine(m[1])
			p.wait("Handoff: “Plan the v2 migration” — Topic changed")
			// The origin came from no continuation: back says so.
			p.typeLine("/continuity back")
			p.wait("This session did not start as a continuation, so there is no previous session to go back to.")

			// Writing in the predecessor: the return offer, before anything is sent.
			sent := len(r.sup.Requests())
			p.typeLine("one more question about compaction")
			s = p.wait("This conversation continues in “Plan the v2 migration”")
			for _, want := range []string{"Writing here would split the conversation.", "Open the current continuation", "Branch into another continuation"} {
				if !strings.Contains(s, want) {
					t.Fatalf("the return offer lacks %q:\n%s", want, s)
				}
			}
			time.Sleep(time.Second)
			if n := len(r.sup.Requests()) - sent; n != 0 {
				t.Fatalf("the return offer let %d requests go", n)
			}
			p.keys(false, "Enter") // Open the current continuation
			if line.name == "0.73.1" {
				p.wait("press Enter to open the current continuation")
				p.sendEditor("/continuity open ")
			}
			p.wait("Your message is in the editor: press Enter to send it in this continuation.")
			if e := editorText(p.screen()); !strings.Contains(e, "one more question about compaction") {
				t.Fatalf("the continuation's editor does not hold the message: %q", e)
			}
			if n := len(r.sup.Requests()) - sent; n != 0 {
				t.Fatalf("opening the continuation sent %d requests", n)
			}
		})
	}
}

// TestTmuxReturnOfferBranch is the return offer's other choice: back in a
// predecessor that continued, "Branch into another continuation" sends
// the message there — one request, answered in the predecessor, which
// then holds the message — and nothing moves to the continuation or
// waits in an editor.
func TestTmuxReturnOfferBranch(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r, p, pred := continuedInTUI(t, line, 150)
			p.typeLine("/continuity back")
			p.wait("Open continuation: /continuity open")
			before := len(r.sessions()[pred.id].messages)
			sent := len(r.sup.Requests())
			const text = "one more question about compaction"
			p.typeLine(text)
			p.wait("Branch into another continuation")
			p.keys(false, "Down")
			time.Sleep(300 * time.Millisecond)
			p.keys(false, "Enter")

			deadline := time.Now().Add(90 * time.Second)
			for {
				got := r.sessions()[pred.id]
				if n := len(got.messages); n >= before+2 && got.messages[n-1] == "assistant" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the branched message was never answered in the predecessor (messages %v, %d before)", got.messages, before)
				}
				time.Sleep(500 * time.Millisecond)
			}
			if n := len(r.sup.Requests()) - sent; n == 0 {
				t.Fatalf("branching sent no request")
			}
			file, err := os.ReadFile(r.sessions()[pred.id].path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(file), text) {
				t.Fatalf("the predecessor's file does not hold the branched message")
			}
			s := p.screen()
			if strings.Contains(s, "Your message is in the editor") || strings.Contains(editorText(s), text) {
				t.Fatalf("branching moved the message toward the continuation:\n%s", s)
			}
		})
	}
}

package e2e_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tuiPi is the real pi terminal interface in a tmux session of its own
// (its own server socket, a fixed 160-column window, 50 rows unless a test
// needs a whole transcript on screen), driven with send-keys and read with
// capture-pane, as a person at the terminal would.
type tuiPi struct {
	t      *testing.T
	socket string
}

func (r *rig) tui(acct string) *tuiPi {
	r.t.Helper()
	return r.tuiRows(acct, 50)
}

// tuiRows is tui with a window rows high.
func (r *rig) tuiRows(acct string, rows int) *tuiPi {
	r.t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		r.t.Fatalf("tmux is not installed: run scripts/setup.d/40-tmux.sh (%v)", err)
	}
	p := &tuiPi{t: r.t, socket: fmt.Sprintf("pi-e2e-%d", time.Now().UnixNano())}
	cmd := []string{"env", "-i", "TERM=xterm-256color", "LANG=C.UTF-8"}
	cmd = append(cmd, r.env(acct)...)
	cmd = append(cmd, r.line.node, r.line.cli, "-e", filepath.Join(packageDir(r.t), "index.ts"), "-c")
	var quoted []string
	for _, c := range cmd {
		quoted = append(quoted, "'"+strings.ReplaceAll(c, "'", `'\''`)+"'")
	}
	shell := "cd '" + r.workDir + "' && exec " + strings.Join(quoted, " ")
	if out, err := exec.Command("tmux", "-L", p.socket, "new-session", "-d", "-s", "pi", "-x", "160", "-y", strconv.Itoa(rows), shell).CombinedOutput(); err != nil {
		r.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	r.t.Cleanup(func() {
		if r.t.Failed() {
			r.t.Logf("the screen at the end:\n%s", p.screen())
		}
		_ = exec.Command("tmux", "-L", p.socket, "kill-server").Run()
	})
	return p
}

// screen is what the pane shows now.
func (p *tuiPi) screen() string {
	out, _ := exec.Command("tmux", "-L", p.socket, "capture-pane", "-p", "-t", "pi").Output()
	return string(out)
}

// keys sends keys (tmux key names, or literal text with literal true).
func (p *tuiPi) keys(literal bool, keys ...string) {
	p.t.Helper()
	args := []string{"-L", p.socket, "send-keys", "-t", "pi"}
	if literal {
		args = append(args, "-l")
	}
	if out, err := exec.Command("tmux", append(args, keys...)...).CombinedOutput(); err != nil {
		p.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

// typeLine types text and presses Enter. A slash command opens pi's
// completion menu, where the first Enter may only complete the command:
// Enter is pressed again while the editor still holds the text.
func (p *tuiPi) typeLine(text string) {
	p.keys(true, text)
	for i := 0; i < 10; i++ {
		time.Sleep(time.Second)
		if i > 0 && !strings.Contains(editorText(p.screen()), strings.TrimSpace(text)) {
			return
		}
		p.keys(false, "Enter")
	}
}

// editorText is what pi's editor holds: the lines between the screen's
// last two rules.
func editorText(screen string) string {
	lines := strings.Split(screen, "\n")
	var rules []int
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "────") {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return ""
	}
	return strings.Join(lines[rules[len(rules)-2]+1:rules[len(rules)-1]], "\n")
}

// wait returns the screen once it shows want.
func (p *tuiPi) wait(want string) string {
	p.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		s := p.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestTmuxContinuityViewAndSwitchPause drives the real pi TUI of both
// lines: `/continuity` shows the policy and the rule; an account switch
// with the policy off pauses the turn with its three choices on screen,
// and Cancel sends nothing; `/continuity context` shows the last boundary
// decision.
func TestTmuxContinuityViewAndSwitchPause(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			if res := r.print("acct-A", "list the files"); res.err != nil {
				t.Fatalf("turn 1 as A: %v\n%s", res.err, res.stderr)
			}
			p := r.tui("acct-B")
			p.wait("Visible-history continuation: Off") // the footer: the extension has started
			p.typeLine("/continuity")
			p.wait("Session policy: Off")
			p.wait("Omission rule: turn")

			sent := len(r.sup.Requests())
			p.typeLine("list the files")
			s := p.wait("You switched to a different account")
			for _, choice := range []string{"Enable for this session", "Keep off", "Cancel"} {
				if !strings.Contains(s, choice) {
					t.Fatalf("the pause does not offer %q:\n%s", choice, s)
				}
			}
			p.keys(false, "Down")
			p.keys(false, "Down")
			time.Sleep(300 * time.Millisecond)
			p.keys(false, "Enter")
			time.Sleep(3 * time.Second)
			if n := len(r.sup.Requests()) - sent; n != 0 {
				t.Fatalf("Cancel at the pause still sent %d requests", n)
			}

			p.typeLine("/continuity context")
			p.wait("Context boundary:")
		})
	}
}

// TestTmuxSwitchPauseEnableAndKeepOff drives the pause's two other
// choices in the real pi TUI of both lines. Enable for this session: the
// policy is on for the turn that paused, so its requests (the tool step
// and the answer) are accepted as B, and the footer says On. Keep off:
// the request goes as pi built it, with A's reasoning, and the supplier
// rejects it; the rejection offers Enable, and Cancel there leaves the
// policy off.
func TestTmuxSwitchPauseEnableAndKeepOff(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name+"/enable", func(t *testing.T) {
			r := newRig(t, line)
			if res := r.print("acct-A", "list the files"); res.err != nil {
				t.Fatalf("turn 1 as A: %v\n%s", res.err, res.stderr)
			}
			p := r.tui("acct-B")
			p.wait("Visible-history continuation: Off")
			sent := len(r.sup.Requests())
			p.typeLine("list the files")
			p.wait("You switched to a different account")
			p.keys(false, "Enter") // the first choice: Enable for this session
			p.wait("Visible-history continuation is on for this session.")
			deadline := time.Now().Add(90 * time.Second)
			for len(r.sup.Requests())-sent < 2 {
				if time.Now().After(deadline) {
					t.Fatalf("after Enable the turn sent %d requests, want the tool step and the answer", len(r.sup.Requests())-sent)
				}
				time.Sleep(250 * time.Millisecond)
			}
			for _, req := range r.sup.Requests()[sent:] {
				if req.Status != 200 || req.Account != "acct-B" {
					t.Fatalf("after Enable: %s %d %s", req.Account, req.Status, req.Problem)
				}
			}
			p.typeLine("/continuity")
			p.wait("Session policy: On")
		})
		t.Run(line.name+"/keep-off", func(t *testing.T) {
			r := newRig(t, line)
			if res := r.print("acct-A", "list the files"); res.err != nil {
				t.Fatalf("turn 1 as A: %v\n%s", res.err, res.stderr)
			}
			p := r.tui("acct-B")
			p.wait("Visible-history continuation: Off")
			sent := len(r.sup.Requests())
			p.typeLine("list the files")
			p.wait("You switched to a different account")
			p.keys(false, "Down")
			time.Sleep(300 * time.Millisecond)
			p.keys(false, "Enter") // Keep off
			s := p.wait("Enable visible-history continuation")
			reqs := r.sup.Requests()[sent:]
			if len(reqs) != 1 || reqs[0].Status != 400 || reqs[0].Account != "acct-B" {
				t.Fatalf("Keep off: want the one request pi built, rejected, got %d (%v)", len(reqs), reqs)
			}
			if !strings.Contains(s, "Cancel") {
				t.Fatalf("the rejection offer has no Cancel:\n%s", s)
			}
			p.keys(false, "Down")
			time.Sleep(300 * time.Millisecond)
			p.keys(false, "Enter") // Cancel
			time.Sleep(2 * time.Second)
			p.typeLine("/continuity")
			p.wait("Session policy: Off")
			if n := len(r.sup.Requests()) - sent; n != 1 {
				t.Fatalf("declining the offer re-sent something: %d requests", n)
			}
		})
	}
}

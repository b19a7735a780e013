package server_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
)

// bndStep is one moment of a boundary scenario: events, then optionally a
// pin_task call, then optionally waiting for the decision the last event's
// boundary (trigger) produces.
type bndStep struct {
	events []hostapi.Event
	pin    *[2]string // pin_task {text, reason}
	await  string
}

// bndWant is what the scenario's last decision record must show.
type bndWant struct {
	decision, reason string
	complete         string // "yes", "no" or "" (no reseed outcome)
	continueAs       string
	pinSource        string
	pinReason        string
	pinProblem       string
	kept, dropped    []string
	queryHas         []string
	queryLacks       []string
	smaller          bool
}

const bndTask = "Fix the tokenizer bug in pkg/parse so that go test ./pkg/parse passes."

var bndFirstTurn = bndStep{events: []hostapi.Event{
	bndCreated(1), bndTurnStart(2, 0), bndUser(3, bndTask),
	bndAssistant(4, "I will reproduce the failure first.", bndAnn{"next_action", "pkg/parse", "Run go test ./pkg/parse"}),
	bndTurnEnd(5, 0),
}, await: "turn_end"}

// bndFailures are n rounds of a failing test, a hypothesis and an
// abandoned approach, starting at seq from.
func bndFailures(from int64, n int) []hostapi.Event {
	var out []hostapi.Event
	for i := 0; i < n; i++ {
		q := from + int64(3*i)
		out = append(out,
			bndTest(q, "pkg/parse", false, "TestTokenize: unexpected EOF at offset 17", 6000),
			bndAssistant(q+1, "Maybe the lexer drops the last rune.", bndAnn{"hypothesis", "lexer", "the lexer drops the last rune"}),
			bndAssistant(q+2, "That did not work.", bndAnn{"failed_approach", "", "patched peek() to look ahead two runes"}))
	}
	return out
}

// TestBoundaryScenarios is issue 9 through the binary: each scenario's
// events go over the wire, decisions are made after turn/end (or a usage
// event) by the plugin's decider, and the record read through the
// continuity.boundary Remote is checked, then read again from a new
// process on the same data dir and must be byte-identical.
func TestBoundaryScenarios(t *testing.T) {
	scenarios := []struct {
		name   string
		revoke bool // the host cannot give the session's earlier history
		steps  []bndStep
		want   bndWant
	}{{
		name: "the task arrives",
		steps: []bndStep{{events: []hostapi.Event{bndCreated(1), bndTurnStart(2, 0), bndUser(3, bndTask), bndTurnEnd(4, 0)},
			await: "turn_end"}},
		want: bndWant{decision: "APPEND", reason: "task_established", pinSource: "first_user_message", kept: []string{"task::pin@3"}},
	}, {
		name: "a fresh passing test on the same task appends",
		steps: []bndStep{bndFirstTurn, {events: []hostapi.Event{
			bndTurnStart(6, 1), bndTest(7, "pkg/parse", true, "ok pkg/parse 0.2s", 200),
			bndAssistant(8, "", bndAnn{"next_action", "pkg/parse", "Open a pull request with the fix"}), bndTurnEnd(9, 1),
		}, await: "turn_end"}},
		want: bndWant{decision: "APPEND", reason: "task_sharpened", pinSource: "first_user_message",
			kept:    []string{"task::pin@3", "test:pkg/parse:stable@7", "next_action:pkg/parse:stable@8"},
			dropped: []string{"next_action:pkg/parse:superseded@4"}},
	}, {
		name: "pin_task changes the task and reseeds with the reason",
		steps: []bndStep{bndFirstTurn, {events: []hostapi.Event{
			bndTurnStart(6, 1), bndUser(7, "Forget the parser. Write the CSV exporter instead."),
		}, pin: &[2]string{"Write the CSV exporter in exporter/csv.", "the user replaced the parser task"}}, {events: []hostapi.Event{
			bndAssistant(8, "Understood.", bndAnn{"next_action", "exporter/csv", "Create exporter/csv.go with a Write function"}),
			bndTurnEnd(9, 1),
		}, await: "turn_end"}},
		want: bndWant{decision: "RESEED", reason: "task_changed", complete: "yes", continueAs: "topic_change",
			pinSource: "pin_task", pinReason: "the user replaced the parser task",
			kept:       []string{"task::pin@7", "next_action:exporter/csv:stable@8"},
			dropped:    []string{"request::before_pin@3", "next_action:pkg/parse:before_pin@4"},
			queryHas:   []string{"Write the CSV exporter in exporter/csv.", "Create exporter/csv.go with a Write function"},
			queryLacks: []string{"tokenizer", "Forget the parser"}},
	}, {
		name: "stale errors dominate; the witness that fixed them is kept",
		steps: []bndStep{bndFirstTurn, {events: append(append([]hostapi.Event{bndTurnStart(6, 1)}, bndFailures(7, 3)...),
			bndTest(16, "pkg/parse", true, "ok pkg/parse", 100),
			bndAssistant(17, "Ignore the old error, the parser tests pass now.",
				bndAnn{"decision", "lexer", "peek() returns utf8.RuneError at end of input"},
				bndAnn{"next_action", "pkg/parse", "Open a pull request with the fix"}),
			bndTurnEnd(18, 1)), await: "turn_end"}},
		want: bndWant{decision: "RESEED", reason: "residue_dominates", complete: "yes", continueAs: "phase_change",
			pinSource: "first_user_message",
			kept:      []string{"test:pkg/parse:stable@16", "decision:lexer:stable@17", "next_action:pkg/parse:stable@17"},
			dropped: []string{"test:pkg/parse:superseded@7", "test:pkg/parse:superseded@10", "test:pkg/parse:superseded@13",
				"failed_approach::failed_approach@9", "hypothesis:lexer:superseded@8"},
			queryHas:   []string{"test pkg/parse passed (event 16)", "peek() returns utf8.RuneError at end of input"},
			queryLacks: []string{"unexpected EOF", "drops the last rune", "look ahead two runes", "Ignore"}},
	}, {
		name: "a usage event under pressure reseeds into a smaller query",
		steps: []bndStep{bndFirstTurn, {events: []hostapi.Event{
			bndTurnStart(6, 1), bndTool(7, "read_file", strings.Repeat("source line\n", 2000)),
			bndAssistant(8, strings.Repeat("Walking through the tokenizer state machine. ", 100)),
			bndTest(9, "pkg/parse", true, "ok pkg/parse", 100),
			bndAssistant(10, "", bndAnn{"next_action", "pkg/parse", "Open a pull request with the fix"}),
			bndUsage(11, 91000, 100000),
		}, await: "context_pressure"}},
		want: bndWant{decision: "RESEED", reason: "context_pressure", complete: "yes", continueAs: "context_pressure",
			pinSource: "first_user_message", smaller: true, dropped: []string{"result:read_file:swappable@7"},
			queryHas: []string{bndTask, "Open a pull request with the fix"}},
	}, {
		name:   "joined mid-session without readable history: the pin is unrecoverable",
		revoke: true,
		steps: []bndStep{{events: []hostapi.Event{
			bndUser(40, "continue with the second half"),
			bndAssistant(41, "ok", bndAnn{"next_action", "pkg/parse", "Run go test ./pkg/parse"}),
			bndTurnEnd(42, 3),
		}, await: "turn_end"}},
		want: bndWant{decision: "RESEED", reason: "pin_missing", complete: "no", pinProblem: "never_seen"},
	}, {
		name:  "no user message ever: the pin is unrecoverable",
		steps: []bndStep{{events: []hostapi.Event{bndCreated(1), bndAssistant(2, "Hello."), bndTurnEnd(3, 0)}, await: "turn_end"}},
		want:  bndWant{decision: "RESEED", reason: "pin_missing", complete: "no", pinProblem: "never_seen"},
	}}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			const sid = "ses-b"
			dir := t.TempDir()
			h := initialized(t, host.Config{DataDir: dir}, host.AllCapabilities())
			if sc.revoke {
				h.RevokeWith(sid, "forbidden")
			}
			var rec []byte
			for i, st := range sc.steps {
				bndSend(t, h, sid, st.events...)
				if st.pin != nil {
					bndPinTask(t, h, sid, "call-pin-"+strconv.Itoa(i), st.pin[0], st.pin[1], st.events[len(st.events)-1].Seq)
				}
				if st.await != "" {
					rec = bndAwait(t, h, sid, st.events[len(st.events)-1].Seq, st.await)
				}
			}
			bndCheck(t, rec, sc.want)
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			h2 := initialized(t, host.Config{DataDir: dir}, host.AllCapabilities())
			again := contRemote(t, h2, "boundary", map[string]string{"agentId": sid})
			if !bytes.Equal(again, rec) {
				t.Errorf("the record changed across a restart:\nbefore %s\nafter  %s", rec, again)
			}
		})
	}
}

package boundary

import (
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/hostapi"
)

const sid = "session-a"

// step is one moment of a scenario: events to observe, then optionally a
// pin_task call, a change made behind the service's back, or a boundary.
type step struct {
	events []hostapi.Event
	pin    *[3]string // {eventId as decimal or "", text, reason}
	tamper string     // SQL run against the store
	decide Trigger
}

// want is what the scenario's last decision must show.
type want struct {
	decision    Verdict
	reason      Reason
	complete    *bool
	problems    []string
	pinProblem  string
	continueAs  string
	kept        []string // "kind:subject:why@event"
	dropped     []string
	queryHas    []string
	queryLacks  []string
	smallerThan bool // the query is smaller than the retained history
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

var (
	parseTask = "Fix the tokenizer bug in pkg/parse so that go test ./pkg/parse passes."
	firstTurn = step{events: []hostapi.Event{
		created(1), user(2, parseTask),
		assistant(3, "I will reproduce the failure first.", ann{"next_action", "pkg/parse", "Run go test ./pkg/parse"}),
		turnEnd(4, 0),
	}, decide: TurnEnd}
)

func failures(from int64, n int) []hostapi.Event {
	var out []hostapi.Event
	for i := 0; i < n; i++ {
		seq := from + int64(3*i)
		out = append(out,
			testRun(seq, "pkg/parse", false, "TestTokenize: unexpected EOF at offset 17", 6000),
			assistant(seq+1, "Maybe the lexer drops the last rune.", ann{"hypothesis", "lexer", "the lexer drops the last rune"}),
			assistant(seq+2, "That did not work.", ann{"failed_approach", "", "patched peek() to look ahead two runes"}))
	}
	return out
}

func TestScenarios(t *testing.T) {
	scenarios := []struct {
		name  string
		steps []step
		want  want
	}{{
		name:  "the task arrives",
		steps: []step{{events: []hostapi.Event{created(1), user(2, parseTask), turnEnd(3, 0)}, decide: TurnEnd}},
		want:  want{decision: Append, reason: ReasonTaskEstablished, kept: []string{"task::pin@2"}},
	}, {
		name: "a fresh passing test on the same task appends",
		steps: []step{firstTurn, {events: []hostapi.Event{
			testRun(5, "pkg/parse", true, "ok pkg/parse 0.2s", 200),
			assistant(6, "", ann{"next_action", "pkg/parse", "Open a pull request with the fix"}),
			turnEnd(7, 1),
		}, decide: TurnEnd}},
		want: want{decision: Append, reason: ReasonTaskSharpened,
			kept:    []string{"task::pin@2", "test:pkg/parse:stable@5", "next_action:pkg/parse:stable@6"},
			dropped: []string{"next_action:pkg/parse:superseded@3", "narration::narration@3"}},
	}, {
		name: "narration alone adds no witness",
		steps: []step{firstTurn, {events: []hostapi.Event{
			assistant(5, "Still thinking about how the tokenizer works; nothing new to report yet."), turnEnd(6, 1),
		}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonNoNewWitness, complete: yes(), continueAs: "phase_change",
			dropped: []string{"narration::narration@5"}, queryHas: []string{"Run go test ./pkg/parse"}},
	}, {
		name: "pin_task replaces the task and reseeds",
		steps: []step{firstTurn, {events: []hostapi.Event{
			user(5, "Forget the parser. Write the CSV exporter instead."),
			assistant(6, "Understood.", ann{"next_action", "exporter/csv", "Create exporter/csv.go with a Write function"}),
		}, pin: &[3]string{"5", "Write the CSV exporter in exporter/csv.", "the user replaced the parser task"}}, {
			events: []hostapi.Event{turnEnd(7, 1)}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonTaskChanged, complete: yes(), continueAs: "topic_change",
			kept:       []string{"task::pin@5", "next_action:exporter/csv:stable@6"},
			dropped:    []string{"request::before_pin@2", "next_action:pkg/parse:before_pin@3"},
			queryHas:   []string{"Write the CSV exporter in exporter/csv.", "Create exporter/csv.go"},
			queryLacks: []string{"tokenizer", "Forget the parser"}},
	}, {
		name: "stale errors dominate and the fixing witness is kept",
		steps: []step{firstTurn, {events: append(failures(5, 3),
			testRun(14, "pkg/parse", true, "ok pkg/parse", 100),
			assistant(15, "Ignore the old error, the parser tests pass now.",
				ann{"decision", "lexer", "peek() returns utf8.RuneError at end of input"},
				ann{"next_action", "pkg/parse", "Open a pull request with the fix"}),
			turnEnd(16, 1)), decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonResidueDominates, complete: yes(), continueAs: "phase_change",
			// The final answer of the completed turn whose latest test run
			// passed is its confirmed outcome, restated positively.
			kept: []string{"test:pkg/parse:stable@14", "outcome::stable@15", "decision:lexer:stable@15", "next_action:pkg/parse:stable@15"},
			dropped: []string{"test:pkg/parse:superseded@5", "test:pkg/parse:superseded@8", "test:pkg/parse:superseded@11",
				"failed_approach::failed_approach@7", "hypothesis:lexer:superseded@6"},
			queryHas: []string{"test pkg/parse passed (event 14)", "peek() returns utf8.RuneError",
				"outcome of a completed turn (event 15): The parser tests pass now."},
			queryLacks: []string{"unexpected EOF", "drops the last rune", "peek() to look ahead", "Ignore"}},
	}, {
		name: "context pressure reseeds into a smaller query",
		steps: []step{firstTurn, {events: []hostapi.Event{
			toolOut(5, "read_file", false, strings.Repeat("source line\n", 2000)),
			assistant(6, strings.Repeat("Walking through the tokenizer state machine. ", 100)),
			testRun(7, "pkg/parse", true, "ok pkg/parse", 100),
			assistant(8, "", ann{"next_action", "pkg/parse", "Open a pull request with the fix"}),
			usage(9, 91000, 100000),
			turnEnd(10, 1),
		}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonContextPressure, complete: yes(), continueAs: "context_pressure",
			smallerThan: true, dropped: []string{"result:read_file:swappable@5"},
			queryHas: []string{parseTask, "Open a pull request with the fix"}},
	}, {
		name:  "the lead's pressure trigger reseeds without a usage event",
		steps: []step{firstTurn, {events: []hostapi.Event{toolOut(5, "read_file", false, strings.Repeat("y", 40000))}, decide: ContextPressure}},
		want:  want{decision: Reseed, reason: ReasonContextPressure, complete: yes(), smallerThan: true},
	}, {
		name: "a reseed carries the current failure the next action needs",
		steps: []step{firstTurn, {events: []hostapi.Event{
			testRun(5, "pkg/parse", false, "TestTokenize: unexpected EOF at offset 17", 200),
			testRun(6, "pkg/lex", false, "TestLex: stale failure", 200),
			testRun(7, "pkg/lex", true, "ok", 20),
			assistant(8, strings.Repeat("Reading the lexer. ", 400), ann{"next_action", "pkg/parse", "Handle EOF in peek()"}),
		}, decide: ContextPressure}},
		want: want{decision: Reseed, reason: ReasonContextPressure, complete: yes(), smallerThan: true,
			kept:       []string{"test:pkg/parse:needed_for_next_action@5", "test:pkg/lex:stable@7"},
			dropped:    []string{"test:pkg/lex:superseded@6"},
			queryHas:   []string{"test pkg/parse fails (event 5): TestTokenize: unexpected EOF at offset 17", "test pkg/lex passed (event 7)"},
			queryLacks: []string{"stale failure"}},
	}, {
		name: "compaction start threatens the pin",
		steps: []step{firstTurn, {events: []hostapi.Event{
			toolOut(5, "read_file", false, strings.Repeat("y", 40000)),
			ev(6, "compaction/start", map[string]any{"compactionId": "c1", "turn": nil}),
		}, decide: CompactionStart}},
		want: want{decision: Reseed, reason: ReasonCompaction, complete: yes(), continueAs: "context_pressure", smallerThan: true},
	}, {
		name: "witnesses outlive compaction; a large retained history reseeds",
		steps: []step{firstTurn, {events: []hostapi.Event{
			testRun(5, "pkg/parse", true, "ok", 10),
			checkpoint(6, "c1", "Summary: the parser was fixed."),
			toolOut(7, "grep", false, strings.Repeat("z", 30000)),
			assistant(8, "", ann{"effect", "pr:42", "opened pull request #42"}),
			turnEnd(9, 1),
		}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonReconstructionCheaper, complete: yes(),
			kept:     []string{"test:pkg/parse:stable@5", "checkpoint:c1:stable@6", "effect:pr:42:stable@8"},
			queryHas: []string{"test pkg/parse passed (event 5)", "effect pr:42 (event 8): opened pull request #42", "compaction checkpoint c1"}},
	}, {
		// No event states a next action (hosts that do not annotate): the
		// reseed derives it from the pinned task and names that event.
		name: "a reseed without a stated next action carries out the pinned task",
		steps: []step{{events: []hostapi.Event{created(1), user(2, parseTask)}, decide: TurnEnd}, {
			events: []hostapi.Event{assistant(3, "Looking around.")}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonNoNewWitness, complete: yes(),
			queryHas: []string{"Next action [event 2]:", "Carry out the pinned task (event 2)"}},
	}, {
		name:  "no user message ever seen",
		steps: []step{{events: []hostapi.Event{created(1), assistant(2, "Hello.")}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonPinMissing, complete: no(), pinProblem: PinProblemNeverSeen,
			problems: []string{ProblemPinUnrecoverable}},
	}, {
		name:  "a mid-session view never yields a pin",
		steps: []step{{events: []hostapi.Event{user(40, "continue with the second half"), assistant(41, "ok")}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonPinMissing, complete: no(), pinProblem: PinProblemNeverSeen,
			problems: []string{ProblemPinUnrecoverable}},
	}, {
		name:  "the pin row was deleted",
		steps: []step{firstTurn, {tamper: `DELETE FROM boundary_pins`, events: []hostapi.Event{testRun(5, "pkg/parse", true, "ok", 10)}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonPinMissing, complete: no(), pinProblem: PinProblemDeleted,
			problems: []string{ProblemPinUnrecoverable}},
	}, {
		name:  "the pin text was changed behind the digest",
		steps: []step{firstTurn, {tamper: `UPDATE boundary_pins SET text = 'Delete pkg/parse.'`, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonPinChanged, complete: no(), pinProblem: PinProblemDigestMismatch,
			problems: []string{ProblemPinUnrecoverable}},
	}, {
		// Issue 16: a constraint that is all negation is kept and restated
		// positively, never dropped from the query while the record keeps it.
		name: "a negated constraint is restated, not dropped",
		steps: []step{firstTurn, {events: []hostapi.Event{
			testRun(5, "pkg/parse", true, "ok", 100),
			assistant(6, "",
				ann{"constraint", "flaky", "Don't worry about the flaky test failures."},
				ann{"next_action", "pkg/parse", "Open a pull request with the fix."}),
			toolOut(7, "read_file", false, strings.Repeat("q", 40000)),
		}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonReconstructionCheaper, complete: yes(),
			queryHas:   []string{"flaky: The flaky test failures are out of scope."},
			queryLacks: []string{"don't worry"}},
	}, {
		name: "negated residue is rewritten out of the query",
		steps: []step{firstTurn, {events: []hostapi.Event{
			testRun(5, "pkg/parse", false, "TestTokenize: unexpected EOF", 100),
			testRun(6, "pkg/parse", true, "ok", 100),
			assistant(7, "",
				ann{"constraint", "api", "Disregard the earlier failure. Keep the public API of pkg/parse unchanged."},
				ann{"decision", "lexer", "Don't worry about the old error; peek() now returns utf8.RuneError at end of input."},
				ann{"next_action", "pkg/parse", "Ignore the previous failure, open a pull request with the fix."}),
			toolOut(8, "read_file", false, strings.Repeat("q", 40000)),
		}, decide: TurnEnd}},
		want: want{decision: Reseed, reason: ReasonReconstructionCheaper, complete: yes(),
			queryHas:   []string{"Keep the public API of pkg/parse unchanged.", "Open a pull request with the fix."},
			queryLacks: []string{"ignore the", "disregard", "don't worry", "forget", "earlier failure", "old error"}},
	}}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			db := openDB(t, t.TempDir())
			s := newService(t, db, Options{})
			var d Decision
			for _, st := range sc.steps {
				d = runStep(t, s, db, st, d)
			}
			checkWant(t, d, sc.want)
		})
	}
}

package uicontract_test

import (
	"os"
	"sort"
	"strings"
	"testing"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// owned lists the schema names (or name prefixes) this suite covers with
// examples: the wire protocol, session events, notices and the views and
// Remotes of visible-history continuation. Schemas of other areas carry
// their own tests.
var owned = []string{
	"wire/",
	"sessionevent/",
	"event/continuity.notice.args",
	"event/githubCopilotSessionContinuation.changed.args",
	"remote/continuity/accountSwitch.",
	"remote/continuity/notices.",
	"view/ComposerNotice",
	"view/AccountSwitchPrompt",
	"view/ReplayOffer",
	"codes/copilot",
	"common/sessionHeader",
	"common/sessionEvent",
}

func isOwned(name string) bool {
	for _, p := range owned {
		if name == p || strings.HasSuffix(p, "/") && strings.HasPrefix(name, p) || strings.HasSuffix(p, ".") && strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// names returns every embedded schema, sorted. A failure here usually means
// one schema file does not compile or $refs a file that is not there yet.
func names(t *testing.T) []string {
	t.Helper()
	ns, err := uicontract.Names()
	if err != nil {
		t.Fatalf("schemas do not compile: %v", err)
	}
	sort.Strings(ns)
	return ns
}

// TestEverySchemaCompiles loads every embedded schema by name.
func TestEverySchemaCompiles(t *testing.T) {
	for _, n := range names(t) {
		if _, err := uicontract.Schema(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

// TestProtocolMessagesHaveSchemas checks that every message docs/protocol.md
// names has its schema, so a message cannot be dropped by deleting a file.
func TestProtocolMessagesHaveSchemas(t *testing.T) {
	want := []string{
		"wire/request", "wire/notification", "wire/response", "wire/error",
		"wire/initialize.params", "wire/initialize.result", "wire/shutdown.params", "wire/shutdown.result",
		"wire/session/event.params", "wire/agent/disposed.params", "wire/llm/response.params", "wire/cancelRequest.params",
		"wire/agent/request.params", "wire/agent/request.result", "wire/llm/payload.params", "wire/llm/payload.result",
		"wire/remote/invoke.params", "wire/remote/invoke.result", "wire/tool/call.params", "wire/tool/call.result",
		"wire/settings/describe.params", "wire/settings/describe.result", "wire/settings/mutate.params", "wire/settings/mutate.result",
		"wire/agents/get.params", "wire/agents/get.result", "wire/session/create.params", "wire/session/create.result",
		"wire/session/read.params", "wire/session/read.result", "wire/session/run.params", "wire/session/run.result", "wire/remote/event.params",
		"sessionevent/session/created.data", "sessionevent/turn/start.data", "sessionevent/step/start.data",
		"sessionevent/turn/end.data", "sessionevent/user/message.data", "sessionevent/assistant/message.data",
		"sessionevent/tool/result.data", "sessionevent/account/selected.data", "sessionevent/compaction/start.data",
		"sessionevent/compaction/summary.data", "sessionevent/compaction/end.data",
		"event/continuity.notice.args", "event/githubCopilotSessionContinuation.changed.args",
		"remote/continuity/accountSwitch.args", "remote/continuity/accountSwitch.value",
		"remote/continuity/notices.args", "remote/continuity/notices.value",
		"remote/continuity/startRun.args", "remote/continuity/startRun.value",
		"view/ComposerNotice", "view/AccountSwitchPrompt", "view/ReplayOffer",
		"codes/copilot", "common/texts", "manifest",
	}
	have := map[string]bool{}
	for _, n := range names(t) {
		have[n] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("no schema %s", w)
		}
	}
}

// TestOwnedSchemasHaveExamples requires a passing example for every schema
// this suite owns, and a failing one for every wire message, view and
// Remote, so each schema is shown to accept and to refuse something.
func TestOwnedSchemasHaveExamples(t *testing.T) {
	valid, invalid := map[string]int{}, map[string]int{}
	for _, rows := range loadExamples(t) {
		for _, e := range rows {
			if e.Valid {
				valid[e.Schema]++
			} else {
				invalid[e.Schema]++
			}
		}
	}
	for _, n := range names(t) {
		if !isOwned(n) {
			continue
		}
		if valid[n] == 0 {
			t.Errorf("%s: no valid example", n)
		}
		if invalid[n] == 0 {
			t.Errorf("%s: no invalid example", n)
		}
	}
}

// TestReadmeIndexesOwnedSchemas keeps README.md's index in step with the
// files: every owned schema is listed there by name.
func TestReadmeIndexesOwnedSchemas(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, n := range names(t) {
		if isOwned(n) && !strings.Contains(readme, "`"+n+"`") {
			t.Errorf("README.md does not list `%s`", n)
		}
	}
}

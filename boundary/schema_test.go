package boundary

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The schemas are compiled here from the files on disk, each with only what
// it refers to, so that this package's tests check its own contract even
// while another area's schema is being edited.
const schemaDir = "../ui-contract/schemas/"

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*jsonschema.Schema{}
)

func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[name]; ok {
		return s
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	const base = "https://continuity.invalid/ui-contract/schemas/"
	c.LoadURL = func(url string) (_ io.ReadCloser, err error) {
		return os.Open(filepath.Join(schemaDir, strings.TrimPrefix(url, base)))
	}
	s, err := c.Compile(base + name + ".json")
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	schemaCache[name] = s
	return s
}

func validate(t *testing.T, name string, v any) error {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return schema(t, name).Validate(doc)
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkRecordSchema validates a decision as the Remote's value and, when it
// offers a projection, that projection as continue_session arguments.
func checkRecordSchema(t *testing.T, d Decision) {
	t.Helper()
	if err := validate(t, "remote/continuity/boundary.value", d); err != nil {
		t.Errorf("decision record does not match its schema: %v", err)
	}
	if d.Reseed == nil || d.Reseed.Projection == nil {
		return
	}
	p := d.Reseed.Projection
	args := map[string]any{"reason": p.Reason, "title": p.Title, "handoff": p.Handoff, "sources": p.Sources}
	if _, err := os.Stat(schemaDir + "tool/continue_session.args.json"); err != nil {
		return // session continuation's schema is not in the tree
	}
	if err := validate(t, "tool/continue_session.args", args); err != nil {
		t.Errorf("the projection is not valid continue_session arguments: %v", err)
	}
}

// TestSchemaExamples shows each schema of this package accepting and
// refusing something.
func TestSchemaExamples(t *testing.T) {
	digest := Digest(2, "task")
	rows := []struct {
		schema string
		doc    string
		valid  bool
	}{
		{"tool/pin_task.args", `{"text": "Write the exporter", "reason": "the user changed the task"}`, true},
		{"tool/pin_task.args", `{"text": "Write the exporter"}`, false},
		{"tool/pin_task.args", `{"text": "", "reason": "r"}`, false},
		{"tool/pin_task.args", `{"text": "t", "reason": "r", "eventId": "3"}`, false},
		{"tool/pin_task.structured", `{"digest": "` + digest + `", "eventId": "2", "source": "pin_task"}`, true},
		{"tool/pin_task.structured", `{"digest": "sha1:00", "eventId": "2", "source": "pin_task"}`, false},
		{"remote/continuity/boundary.args", `{"agentId": "session-a"}`, true},
		{"remote/continuity/boundary.args", `{"agentId": "session-a", "extra": 1}`, false},
		{"remote/continuity/boundary.args", `{}`, false},
		{"codes/boundary", `"CONTINUITY_PIN_INVALID"`, true},
		{"codes/boundary", `"CONTINUITY_NOT_A_CODE"`, false},
		{"view/BoundaryDecision", `{"id": 1, "sessionId": "s", "decision": "APPEND", "reason": "task_sharpened", "trigger": "turn_end",
			"pin": {"digest": "` + digest + `", "eventId": "2", "source": "first_user_message", "recoverable": true},
			"kept": [], "dropped": [], "numbers": ` + zeroNumbers + `, "viewComplete": true, "at": "2025-03-01T12:00:00Z"}`, true},
		{"view/BoundaryDecision", `{"id": 1, "sessionId": "s", "decision": "APPEND", "reason": "pin_missing", "trigger": "turn_end",
			"pin": {"digest": null, "eventId": null, "recoverable": false, "problem": "never_seen"},
			"kept": [], "dropped": [], "numbers": ` + zeroNumbers + `, "viewComplete": true, "at": "2025-03-01T12:00:00Z"}`, false},
		{"view/BoundaryDecision", `{"id": 1, "sessionId": "s", "decision": "RESEED", "reason": "pin_missing", "trigger": "turn_end",
			"pin": {"digest": null, "eventId": null, "recoverable": false},
			"kept": [], "dropped": [], "numbers": ` + zeroNumbers + `, "reseed": {"complete": false, "problems": ["pin_unrecoverable"]},
			"viewComplete": true, "at": "2025-03-01T12:00:00Z"}`, false},
		{"view/BoundaryDecision", `{"id": 1, "sessionId": "s", "decision": "RESEED", "reason": "no_new_witness", "trigger": "turn_end",
			"pin": {"digest": "` + digest + `", "eventId": "2", "recoverable": true},
			"kept": [], "dropped": [], "numbers": ` + zeroNumbers + `, "reseed": {"complete": true, "problems": []},
			"viewComplete": true, "at": "2025-03-01T12:00:00Z"}`, false},
	}
	for i, r := range rows {
		var doc any
		if err := json.Unmarshal([]byte(r.doc), &doc); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		err := schema(t, r.schema).Validate(doc)
		if (err == nil) != r.valid {
			t.Errorf("row %d (%s): valid=%v, err=%v", i, r.schema, r.valid, err)
		}
	}
}

const zeroNumbers = `{"retainedTokens": 0, "reconstructionTokens": 0, "queryTokens": 0, "overheadTokens": 0, "keptTokens": 0,
	"staleTokens": 0, "residueTokens": 0, "witnessesKept": 0, "witnessesSuperseded": 0, "newWitnesses": 0,
	"residueDropped": 0, "staleDropped": 0, "unreadableEvents": 0}`

// TestPinTaskSchemaIsTheFile keeps the inputSchema served in initialize
// equal to the contract file.
func TestPinTaskSchemaIsTheFile(t *testing.T) {
	b, err := os.ReadFile(schemaDir + "tool/pin_task.args.json")
	if err != nil {
		t.Fatal(err)
	}
	var file, served any
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(Tools()[0].InputSchema, &served); err != nil {
		t.Fatal(err)
	}
	fb, _ := json.Marshal(file)
	sb, _ := json.Marshal(served)
	if string(fb) != string(sb) {
		t.Errorf("pin_task inputSchema differs from tool/pin_task.args.json")
	}
}

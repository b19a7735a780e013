package settings

import (
	"testing"

	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/internal/strictjson"
)

// FuzzStoredDocument: whatever bytes are in the embedded store's file or a
// host's namespace value, reading them never panics, and only exact JSON
// (no member twice, no unbounded number, valid UTF-8) is ever accepted —
// what is not accepted is SETTINGS_INVALID and never rewritten. Seeds hold
// issue 18's shapes.
func FuzzStoredDocument(f *testing.F) {
	for _, s := range []string{
		`{"revision":1,"value":{}}`,
		`{"revision":1,"value":{},"value":{"sessionContinuation":[]}}`,
		`{"revision":1e1000001,"value":{}}`,
		`{"revision":1,"value":{"sessionContinuation":[{"sessionId":"a\ud800","version":1,"consentedAt":1}]}}`,
		"{\"revision\":1,\"value\":{\"k\":\"\xff\"}}",
		`{"revision":2,"value":{"continuationDefaultHistory":[{"enabled":true,"changedAt":1,"changedAt":2}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, ok := parseDocument(b)
		if ok && (strictjson.Check(b) != nil || doc.Revision < 0 || doc.Value[0] != '{') {
			t.Fatalf("accepted %q", b)
		}
		if !ok {
			return
		}
		if _, err := parseState(hostapi.Namespace{NS: Namespace, Value: doc.Value, Revision: doc.Revision}); err == nil && strictjson.Check(doc.Value) != nil {
			t.Fatalf("policy read an inexact value %q", doc.Value)
		}
	})
}

package remote

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/wire"
)

// lineageDouble is session continuation as the continuity Remote sees it:
// it answers projection and records which edges were asked for. Its other
// methods are a nil *continuation.Service's, which the cases never reach.
type lineageDouble struct {
	*continuation.Service
	asked []string
}

func (l *lineageDouble) Projection(_ context.Context, edgeID string) ([]byte, error) {
	l.asked = append(l.asked, edgeID)
	if edgeID == "missing" {
		return nil, diag.New(diag.NotFound, "no such edge")
	}
	return []byte(`{"kept":"as stored"}`), nil
}

// TestContinuityInvoke: an unknown method, arguments the schema refuses, a
// store-backed method while the store is unavailable (the feature is not
// called), a feature failure and a success, each with its answer.
func TestContinuityInvoke(t *testing.T) {
	unavailable := diag.New(diag.StorageUnavailable, "continuity.db cannot be opened")
	for _, tc := range []struct {
		name, method, args string
		stored             error
		code               string // "" for a success
		asked              int
	}{
		{name: "unknown method", method: "nope", args: `{}`, code: MethodNotFound},
		{name: "long unknown method", method: "a" + strings.Repeat("é", 40), args: `{}`, code: MethodNotFound},
		{name: "arguments", method: "projection", args: `{"edgeId":"e1","extra":1}`, code: ArgumentsInvalid},
		{name: "store unavailable", method: "projection", args: `{"edgeId":"e1"}`, stored: unavailable, code: diag.StorageUnavailable},
		{name: "feature failure", method: "projection", args: `{"edgeId":"missing"}`, code: diag.NotFound, asked: 1},
		{name: "success", method: "projection", args: `{"edgeId":"e1"}`, asked: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &lineageDouble{}
			c := NewContinuity(ContinuityFeatures{Lineage: l, Stored: func() error { return tc.stored }})
			res := c.Invoke(context.Background(), tc.method, json.RawMessage(tc.args))
			if len(l.asked) != tc.asked {
				t.Errorf("the feature was asked %d times, want %d", len(l.asked), tc.asked)
			}
			if tc.code == "" {
				if _, ok := res.(wire.RawResult); !ok {
					t.Fatalf("result %#v, want the stored bytes as a wire.RawResult", res)
				}
				return
			}
			env, ok := res.(Envelope)
			if !ok || env.OK || env.Error == nil || env.Error.Code != tc.code {
				t.Fatalf("result %#v, want a %s failure", res, tc.code)
			}
			if !utf8.ValidString(env.Error.Message) {
				t.Errorf("message %q is not valid UTF-8", env.Error.Message)
			}
		})
	}
}

// Package remote serves the Remote namespaces continuity answers through
// remote/invoke (docs/protocol.md §5). Each namespace is a plain type whose
// Invoke(ctx, method, args) returns a DSH result Envelope; the wire layer
// only routes the namespace to it. Arguments are checked against the
// namespace's ui-contract schemas before any method runs.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// SessionContinuationNamespace is the Remote namespace DSH clients call.
const SessionContinuationNamespace = "githubCopilotSessionContinuation"

// ChangedEvent is the remote/event sent after each successful change; its
// args are event/githubCopilotSessionContinuation.changed.args.
const ChangedEvent = SessionContinuationNamespace + ".changed"

// TurnView is what the turn lifecycle knows about a session right now.
type TurnView interface {
	// ActiveTurnEnabled returns the policy the running admitted turn
	// captured; running is false when no admitted turn runs.
	ActiveTurnEnabled(sessionID string) (enabled bool, running bool)
	// Compaction returns the session's latest compaction bracket status
	// (state: running, completed, failed, cancelled or blocked); ok is
	// false when there is none to show.
	Compaction(sessionID string) (id, state string, ok bool)
}

// SessionContinuation serves the githubCopilotSessionContinuation Remote:
// get, set, authorizeNext, defaults and setDefault. It looks sessions up
// through the host's Agents (explicit lookup, never a guess from local
// state), persists through the settings Policy, keeps legacy one-turn
// consent in Consent, and announces each successful change with a
// githubCopilotSessionContinuation.changed event. Safe for concurrent use.
type SessionContinuation struct {
	policy  *settings.Policy
	agents  hostapi.Agents
	turns   TurnView
	emit    hostapi.Emitter
	consent *Consent
}

// NewSessionContinuation returns the Remote. turns may be nil (no turn
// state is shown) and emit may be nil (no events are sent); consent must
// not be nil: it is shared with turn admission, which consumes it.
func NewSessionContinuation(p *settings.Policy, agents hostapi.Agents, turns TurnView, emit hostapi.Emitter, consent *Consent) *SessionContinuation {
	return &SessionContinuation{policy: p, agents: agents, turns: turns, emit: emit, consent: consent}
}

// scHandler runs one method on arguments that passed the method's schema.
type scHandler func(s *SessionContinuation, ctx context.Context, args json.RawMessage) (any, error)

// scMethods is the method table; a method's arguments schema is
// remote/githubCopilotSessionContinuation/<method>.args.
var scMethods = map[string]scHandler{
	"get":           withArgs((*SessionContinuation).get),
	"set":           withArgs((*SessionContinuation).set),
	"authorizeNext": withArgs((*SessionContinuation).authorizeNext),
	"defaults":      withArgs((*SessionContinuation).defaults),
	"setDefault":    withArgs((*SessionContinuation).setDefault),
}

// Invoke runs one method with the client's args (a JSON object; absent or
// null args are {}), and always returns an envelope: unknown methods are
// method-not-found, bad arguments arguments-invalid, failures carry their
// diagnostic code.
func (s *SessionContinuation) Invoke(ctx context.Context, method string, args json.RawMessage) Envelope {
	run, ok := scMethods[method]
	if !ok {
		return Failure(diag.Newf(MethodNotFound, "%s has no method %q", SessionContinuationNamespace, method))
	}
	if t := bytes.TrimSpace(args); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		args = json.RawMessage("{}")
	}
	schema := "remote/" + SessionContinuationNamespace + "/" + method + ".args"
	if err := uicontract.Validate(schema, args); err != nil {
		return Failure(diag.Newf(ArgumentsInvalid, "%s/%s arguments: %v", SessionContinuationNamespace, method, err))
	}
	v, err := run(s, ctx, args)
	if err != nil {
		return Failure(err)
	}
	return Success(v)
}

// withArgs adapts a handler taking typed arguments. Decoding is strict
// (unknown members, wrong types, integers that do not fit) even though the
// schema already passed, so the two can never disagree silently.
func withArgs[A any](h func(*SessionContinuation, context.Context, A) (any, error)) scHandler {
	return func(s *SessionContinuation, ctx context.Context, raw json.RawMessage) (any, error) {
		var a A
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&a); err != nil {
			return nil, diag.Newf(ArgumentsInvalid, "arguments: %s", decodeReason(err))
		}
		return h(s, ctx, a)
	}
}

// decodeReason names what failed without repeating the client's value.
func decodeReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("member %q cannot hold a %s", te.Field, te.Value)
	}
	return "not decodable"
}

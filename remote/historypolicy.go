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

// HistoryPolicyNamespace is the namespace DSH clients call for the
// visible-history policy. The wire name says "session continuation" for
// historical reasons (docs/protocol.md §5 fixes it); the Go names say
// history policy so that they are not read as session continuation
// (package continuation).
const HistoryPolicyNamespace = "githubCopilotSessionContinuation"

// PolicyChangedEvent is the remote/event sent after each successful change
// of the policy; its args are
// event/githubCopilotSessionContinuation.changed.args.
const PolicyChangedEvent = HistoryPolicyNamespace + ".changed"

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

// HistoryPolicy serves the visible-history policy (the Session policy of
// the composer, docs/design.md §2) as the githubCopilotSessionContinuation
// Remote: get, set, authorizeNext, defaults and setDefault. It looks
// sessions up through the host's Agents (explicit lookup, never a guess
// from local state), persists through the settings Policy, keeps legacy
// one-turn consent in Consent, and announces each successful change with a
// githubCopilotSessionContinuation.changed event. Safe for concurrent use.
type HistoryPolicy struct {
	policy  *settings.Policy
	agents  hostapi.Agents
	turns   TurnView
	emit    hostapi.Emitter
	consent *Consent
}

// NewHistoryPolicy returns the Remote. turns may be nil (no turn
// state is shown) and emit may be nil (no events are sent); consent must
// not be nil: it is shared with turn admission, which consumes it.
func NewHistoryPolicy(p *settings.Policy, agents hostapi.Agents, turns TurnView, emit hostapi.Emitter, consent *Consent) *HistoryPolicy {
	return &HistoryPolicy{policy: p, agents: agents, turns: turns, emit: emit, consent: consent}
}

// policyHandler runs one method on arguments that passed the method's schema.
type policyHandler func(s *HistoryPolicy, ctx context.Context, args json.RawMessage) (any, error)

// policyMethods is the method table; a method's arguments schema is
// remote/githubCopilotSessionContinuation/<method>.args.
var policyMethods = map[string]policyHandler{
	"get":           withArgs((*HistoryPolicy).get),
	"set":           withArgs((*HistoryPolicy).set),
	"authorizeNext": withArgs((*HistoryPolicy).authorizeNext),
	"defaults":      withArgs((*HistoryPolicy).defaults),
	"setDefault":    withArgs((*HistoryPolicy).setDefault),
}

// Invoke runs one method with the client's args (a JSON object; absent or
// null args are {}), and always returns an envelope: unknown methods are
// method-not-found, bad arguments arguments-invalid, failures carry their
// diagnostic code.
func (s *HistoryPolicy) Invoke(ctx context.Context, method string, args json.RawMessage) Envelope {
	run, ok := policyMethods[method]
	if !ok {
		return Failure(diag.Newf(MethodNotFound, "%s has no method %q", HistoryPolicyNamespace, method))
	}
	if t := bytes.TrimSpace(args); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		args = json.RawMessage("{}")
	}
	schema := "remote/" + HistoryPolicyNamespace + "/" + method + ".args"
	if err := uicontract.Validate(schema, args); err != nil {
		return Failure(diag.Newf(ArgumentsInvalid, "%s/%s arguments: %v", HistoryPolicyNamespace, method, err))
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
func withArgs[A any](h func(*HistoryPolicy, context.Context, A) (any, error)) policyHandler {
	return func(s *HistoryPolicy, ctx context.Context, raw json.RawMessage) (any, error) {
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

package remote

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/boundary"
	"github.com/continuity-dev/continuity/continuation"
	"github.com/continuity-dev/continuity/turns"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// ContinuityNamespace is the Remote namespace of continuity's own
// features.
const ContinuityNamespace = "continuity"

// Turns is what the continuity Remote calls of the turn lifecycle
// (*turns.Manager): account switches, notices and compaction.
type Turns interface {
	AccountSwitch(ctx context.Context, sessionID, accountID string) (turns.AccountSwitchView, error)
	ChooseAccount(ctx context.Context, sessionID, accountID, choice string) (turns.AccountSwitchView, error)
	Notices(sessionID string) turns.NoticesView
	CompactVisibleHistory(sessionID, compactionID string) (turns.VisibleHistoryCompaction, error)
}

// Lineage is what the continuity Remote calls of session continuation
// (*continuation.Service): the inspectors of edges, manifests and sources,
// and a successor's run.
type Lineage interface {
	Lineage(ctx context.Context, sessionID string) (continuation.LineageValue, error)
	Handoff(ctx context.Context, edgeID string) (continuation.HandoffInspector, error)
	Manifest(ctx context.Context, manifestID string) (continuation.Manifest, error)
	Projection(ctx context.Context, edgeID string) ([]byte, error)
	OpenSource(ctx context.Context, manifestID, tier string, index int) (continuation.OpenedSourceView, error)
	RetryRun(ctx context.Context, edgeID string) (continuation.SuccessorRun, error)
}

// Boundaries is what the continuity Remote calls of managed context
// (*boundary.Service).
type Boundaries interface {
	Decided(ctx context.Context, sessionID string) (boundary.Decision, error)
}

// ContinuityFeatures are the features behind the continuity Remote's
// methods. Lineage and Boundaries live in continuity.db: they are nil when
// it could not be opened, and Stored then reports why.
type ContinuityFeatures struct {
	Turns      Turns
	Lineage    Lineage
	Boundaries Boundaries
	// Policy is the visible-history policy the accountSwitch enable
	// choice writes.
	Policy *HistoryPolicy
	// Stored is nil while continuity.db can be used, and otherwise the
	// failure that store-backed methods answer (STORAGE_UNAVAILABLE).
	Stored func() error
}

// Continuity serves the continuity Remote: account switch and notices
// (turns), lineage, handoff, manifest, projection, openSource and startRun
// (session continuation), compactVisibleHistory, and boundary (managed
// context). Each method calls one typed method of its feature. Safe for
// concurrent use when its features are.
type Continuity struct {
	f ContinuityFeatures
}

// NewContinuity returns the continuity Remote over f.
func NewContinuity(f ContinuityFeatures) *Continuity { return &Continuity{f: f} }

// continuityMethod is one method of the continuity namespace.
type continuityMethod struct {
	// stored marks methods that read continuity.db; while the store is
	// unavailable they answer its failure.
	stored bool
	// call decodes arguments that have passed the method's schema and
	// calls the feature. It returns the result — an Envelope, or a
	// wire.RawResult for a value written as stored bytes — or the decode's
	// error, which Invoke answers as arguments-invalid.
	call func(c *Continuity, ctx context.Context, args json.RawMessage) (any, error)
}

// typed adapts a feature call on decoded arguments to a continuityMethod's
// call.
func typed[T any](f func(c *Continuity, ctx context.Context, a T) any) func(*Continuity, context.Context, json.RawMessage) (any, error) {
	return func(c *Continuity, ctx context.Context, raw json.RawMessage) (any, error) {
		var a T
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, err
		}
		return f(c, ctx, a), nil
	}
}

// continuityMethods is the continuity namespace's one method table; a
// method's arguments schema is remote/continuity/<method>.args.
var continuityMethods = map[string]continuityMethod{
	"accountSwitch": {call: typed((*Continuity).accountSwitch)},
	"notices": {call: typed(func(c *Continuity, _ context.Context, a agentArgs) any {
		return Success(c.f.Turns.Notices(a.AgentID))
	})},
	"lineage": {stored: true, call: typed(func(c *Continuity, ctx context.Context, a agentArgs) any {
		return envelopeOf(c.f.Lineage.Lineage(ctx, a.AgentID))
	})},
	"handoff": {stored: true, call: typed(func(c *Continuity, ctx context.Context, a edgeArgs) any {
		return envelopeOf(c.f.Lineage.Handoff(ctx, a.EdgeID))
	})},
	"manifest": {stored: true, call: typed(func(c *Continuity, ctx context.Context, a manifestArgs) any {
		return envelopeOf(c.f.Lineage.Manifest(ctx, a.ManifestID))
	})},
	"projection": {stored: true, call: typed((*Continuity).projection)},
	"compactVisibleHistory": {call: typed(func(c *Continuity, _ context.Context, a compactArgs) any {
		return envelopeOf(c.f.Turns.CompactVisibleHistory(a.AgentID, a.CompactionID))
	})},
	"openSource": {stored: true, call: typed(func(c *Continuity, ctx context.Context, a openSourceArgs) any {
		return envelopeOf(c.f.Lineage.OpenSource(ctx, a.ManifestID, a.Tier, a.Index))
	})},
	"startRun": {stored: true, call: typed(func(c *Continuity, ctx context.Context, a edgeArgs) any {
		return envelopeOf(c.f.Lineage.RetryRun(ctx, a.EdgeID))
	})},
	"boundary": {stored: true, call: typed(func(c *Continuity, ctx context.Context, a agentArgs) any {
		return envelopeOf(c.f.Boundaries.Decided(ctx, a.AgentID))
	})},
}

// Invoke runs one method of the continuity namespace on args (a JSON
// object; the caller turns absent or null args into {}): an unknown method
// is method-not-found; a stored method answers the store's failure while
// the store is unavailable; args that do not match
// remote/continuity/<method>.args are arguments-invalid. The result is an
// Envelope or, for projection's success, a wire.RawResult.
func (c *Continuity) Invoke(ctx context.Context, method string, args json.RawMessage) any {
	m, ok := continuityMethods[method]
	if !ok {
		return Fail(MethodNotFound, "no Remote "+ContinuityNamespace+"/"+clip(method))
	}
	if m.stored {
		if err := c.f.Stored(); err != nil {
			return Failure(err)
		}
	}
	schema := "remote/" + ContinuityNamespace + "/" + method + ".args"
	if err := uicontract.Validate(schema, args); err != nil {
		return Fail(ArgumentsInvalid, schema+": "+err.Error())
	}
	res, err := m.call(c, ctx, args)
	if err != nil {
		return Fail(ArgumentsInvalid, schema+": "+err.Error())
	}
	return res
}

// envelopeOf is a feature's answer as a DSH envelope.
func envelopeOf(v any, err error) Envelope {
	if err != nil {
		return Failure(err)
	}
	return Success(v)
}

// clip shortens a client-chosen name for a message, at a rune boundary.
func clip(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	i := limit
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

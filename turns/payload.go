package turns

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/jsonscan"
)

// Outcomes of llm/payload.
const (
	OutcomeFiltered  = "filtered"
	OutcomeUnchanged = "unchanged"
	OutcomeNative    = "native"
)

// PayloadRequest is llm/payload without its payload bytes.
type PayloadRequest struct {
	RequestID    string `json:"requestId"`
	SessionID    string `json:"sessionId"`
	Turn         int64  `json:"turn"`
	Step         int64  `json:"step"`
	Provider     string `json:"provider"`
	Model        string `json:"model"`
	Purpose      string `json:"purpose"`
	CompactionID string `json:"compactionId,omitempty"`
	RetryOf      string `json:"retryOf,omitempty"`
}

// PayloadResult is the outcome of one llm/payload. Output is nil unless the
// outcome is filtered: then it is the final bytes in pieces, in order —
// slices of the payload itself (nothing is copied on the way to the reply)
// or of retained retry bytes. It must not be modified.
type PayloadResult struct {
	Outcome string
	Output  [][]byte
	Omitted filter.Omitted
	SHA256  [32]byte
	detach  func()
}

// Bytes returns the final bytes of a filtered result as one new slice.
func (r PayloadResult) Bytes() []byte {
	if r.Output == nil {
		return nil
	}
	return bytes.Join(r.Output, nil)
}

// Detach must be called once the result is written and before the
// payload's memory is reused: the retry record of a filtered request still
// borrows its bytes from the payload and takes its own copy here, off the
// way to the reply.
func (r PayloadResult) Detach() {
	if r.detach != nil {
		r.detach()
	}
}

// Hex returns the digest as lowercase hex.
func (r PayloadResult) Hex() string { return hex.EncodeToString(r.SHA256[:]) }

// Payload handles llm/payload. payload is the request body's bytes, already
// validated as JSON by the wire.
func (m *Manager) Payload(ctx context.Context, req PayloadRequest, payload []byte) (PayloadResult, error) {
	return m.payload(ctx, req, payload, nil)
}

func (m *Manager) payload(ctx context.Context, req PayloadRequest, payload []byte, f *filter.Followed) (PayloadResult, error) {
	if m.native(req, payload) {
		return m.nativeResult(req, payload), nil
	}
	if req.Purpose == "compaction" {
		return m.compactionPayload(ctx, req, payload)
	}
	a := m.bindPayload(req)
	if a == nil {
		return m.nativeResult(req, payload), nil
	}
	if !a.enabled {
		// The plugin filters nothing in a policy-off turn, so it never
		// blocks one either: revocation only guards filtering.
		return m.nativeResult(req, payload), nil
	}
	if a.sessionID != req.SessionID || a.turn != req.Turn {
		a.revoke("the payload's session or turn does not match its admission")
	} else if a.model != req.Model {
		a.revoke("the model changed during the turn")
	}
	if err := a.revokedErr(); err != nil {
		return PayloadResult{}, err
	}
	if req.RetryOf != "" {
		if res, ok := m.retry(req.RetryOf, req.RequestID, a); ok {
			return res, nil
		}
	}
	finish, err := a.startPayload(req)
	if err != nil {
		m.diagnostic(a, req, err)
		return PayloadResult{}, err
	}
	res, err := m.apply(ctx, a, req, payload, f)
	finish(err == nil)
	if err != nil {
		return PayloadResult{}, err
	}
	out := PayloadResult{Outcome: OutcomeUnchanged, Omitted: res.Omitted, SHA256: res.SHA256}
	if res.Changed() {
		out.Outcome, out.Output = OutcomeFiltered, res.Pieces
		out.detach = m.retain(req.RequestID, a, out)
	}
	m.filtered(a, req, out)
	return out, nil
}

// apply filters one chat payload of a running admission; startPayload has
// admitted it.
func (m *Manager) apply(ctx context.Context, a *admission, req PayloadRequest, payload []byte, f *filter.Followed) (filter.Result, error) {
	if req.Step > 1 && !a.filter.HasBaseline() {
		err := diag.Newf(diag.TurnBoundaryUnavailable,
			"step %d of turn %d has no first-step baseline (cold mid-turn recovery is not supported)", req.Step, req.Turn)
		m.diagnostic(a, req, err)
		return filter.Result{}, err
	}
	res, err := a.filter.ApplyFollowed(ctx, f, payload, m.pollFor(a))
	if err == nil && ctx.Err() != nil {
		// Cancelled after the work: the host will not send these bytes.
		err = ctx.Err()
	}
	if err != nil {
		if ctx.Err() != nil {
			a.revoke("the request was cancelled")
			return filter.Result{}, err
		}
		m.diagnostic(a, req, err)
		return filter.Result{}, err
	}
	return res, nil
}

// bindPayload returns the admission of a chat payload. A retry that the
// host did not announce with its own agent/request joins the admission of
// the request it retries (of the same session and turn), so that the exact
// bytes can be returned — or REVOKED, when that turn has ended.
func (m *Manager) bindPayload(req PayloadRequest) *admission {
	m.mu.Lock()
	defer m.mu.Unlock()
	if a := m.requests.get(req.RequestID); a != nil || req.RetryOf == "" {
		return a
	}
	a := m.requests.get(req.RetryOf)
	if a != nil && a.sessionID == req.SessionID && a.turn == req.Turn {
		m.requests.bind(req.RequestID, a)
		return a
	}
	return nil
}

// pollFor is the revocation check the filter polls before, during (once
// per hashing chunk) and after its work.
func (m *Manager) pollFor(a *admission) func() error {
	hook := m.onPoll
	return func() error {
		if hook != nil {
			hook()
		}
		return a.revokedErr()
	}
}

// native reports whether a payload does not take part at all: another
// provider, a purpose other than chat or compaction, or a body that is not
// an OpenAI Responses request (Chat Completions has messages, not input).
func (m *Manager) native(req PayloadRequest, payload []byte) bool {
	if !m.opt.Providers.takesPart(req.Provider) {
		return true
	}
	if req.Purpose != "chat" && req.Purpose != "compaction" {
		return true
	}
	return chatCompletions(payload)
}

// chatCompletions reports whether a body is a Chat Completions request
// (messages and no input) rather than a Responses request. The wire has
// validated the frame, so a trusted walk of the top level answers it, and
// it stops at the input member's name: a Responses body's input (nearly
// all of its bytes) is never walked twice.
func chatCompletions(payload []byte) bool {
	sc := jsonscan.Scanner{B: payload, Trusted: true}
	messages := false
	err := sc.Document(func(keyStart, keyEnd, v int) (int, error) {
		if sc.StrIs(payload[keyStart:keyEnd], "input") {
			return 0, errHasInput
		}
		messages = messages || sc.StrIs(payload[keyStart:keyEnd], "messages")
		return sc.Value(v)
	})
	return err == nil && messages
}

// errHasInput stops chatCompletions at a Responses body's input member.
var errHasInput = errors.New("the body has input")

func (m *Manager) nativeResult(req PayloadRequest, payload []byte) PayloadResult {
	m.nativeNotice(req)
	return PayloadResult{Outcome: OutcomeNative, SHA256: sha256.Sum256(payload)}
}

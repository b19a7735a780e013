package turns

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter"
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
// outcome is filtered; it may alias retained retry bytes and must not be
// modified.
type PayloadResult struct {
	Outcome string
	Output  []byte
	Omitted filter.Omitted
	SHA256  [32]byte
}

// Hex returns the digest as lowercase hex.
func (r PayloadResult) Hex() string { return hex.EncodeToString(r.SHA256[:]) }

// Payload handles llm/payload. payload is the request body's bytes, already
// validated as JSON by the wire.
func (m *Manager) Payload(ctx context.Context, req PayloadRequest, payload []byte) (PayloadResult, error) {
	if native(req, payload) {
		return m.nativeResult(req, payload), nil
	}
	if req.Purpose == "compaction" {
		return m.compactionPayload(ctx, req, payload)
	}
	a := m.bound(req.RequestID)
	if a == nil {
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
	if !a.enabled {
		return m.nativeResult(req, payload), nil
	}
	if req.RetryOf != "" {
		if out, sum, ok := m.retry(req.RetryOf, a); ok {
			return PayloadResult{Outcome: OutcomeFiltered, Output: out, SHA256: sum}, nil
		}
	}
	if req.Step > 1 && !a.filter.HasBaseline() {
		return PayloadResult{}, diag.Newf(diag.TurnBoundaryUnavailable,
			"step %d of turn %d has no first-step baseline (cold mid-turn recovery is not supported)", req.Step, req.Turn)
	}
	res, err := a.filter.Apply(ctx, payload, a.revokedErr)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			a.revoke("the request was cancelled")
		}
		return PayloadResult{}, err
	}
	out := PayloadResult{Outcome: OutcomeUnchanged, Omitted: res.Omitted, SHA256: res.SHA256}
	if res.Output != nil {
		out.Outcome, out.Output = OutcomeFiltered, res.Output
	}
	if res.Output != nil {
		m.retain(req.RequestID, a, res.Output, res.SHA256)
	}
	m.filtered(a, req, out)
	return out, nil
}

// native reports whether a payload does not take part at all: another
// provider, a purpose other than chat or compaction, or a body that is not
// an OpenAI Responses request (Chat Completions has messages, not input).
func native(req PayloadRequest, payload []byte) bool {
	if req.Provider != Provider {
		return true
	}
	if req.Purpose != "chat" && req.Purpose != "compaction" {
		return true
	}
	v := unsafeString(payload)
	return !gjson.Get(v, "input").Exists() && gjson.Get(v, "messages").Exists()
}

func (m *Manager) nativeResult(req PayloadRequest, payload []byte) PayloadResult {
	m.nativeNotice(req)
	return PayloadResult{Outcome: OutcomeNative, SHA256: sha256.Sum256(payload)}
}

package remote

import (
	"context"

	"github.com/continuity-dev/continuity/turns"
	"github.com/continuity-dev/continuity/wire"
)

// The arguments of the continuity namespace, as the schemas name them.
type (
	agentArgs struct {
		AgentID string `json:"agentId"`
	}
	accountSwitchArgs struct {
		AgentID   string `json:"agentId"`
		AccountID string `json:"accountId"`
		Choice    string `json:"choice,omitempty"`
	}
	compactArgs struct {
		AgentID      string `json:"agentId"`
		CompactionID string `json:"compactionId,omitempty"`
	}
	openSourceArgs struct {
		ManifestID string `json:"manifestId"`
		Tier       string `json:"tier"`
		Index      int    `json:"index"`
	}
	edgeArgs struct {
		EdgeID string `json:"edgeId"`
	}
	manifestArgs struct {
		ManifestID string `json:"manifestId"`
	}
)

// accountSwitch serves continuity/accountSwitch. Without a choice it asks
// whether switching to accountId must pause (and publishes the
// accountSwitch notice when it does). With one it is the person's answer
// to the pause that agent/request raised (ACCOUNT_SWITCH_PAUSED): enable
// writes the session's own row on first, then enable and keepOff accept
// the account so the next agent/request goes through; cancel keeps the
// old account, and a request on the new one pauses again.
func (c *Continuity) accountSwitch(ctx context.Context, a accountSwitchArgs) any {
	switch a.Choice {
	case "":
		return envelopeOf(c.f.Turns.AccountSwitch(ctx, a.AgentID, a.AccountID))
	case turns.ChoiceEnable:
		if _, err := c.f.Policy.EnableForSession(ctx, a.AgentID); err != nil {
			return envelopeOf(nil, err)
		}
	}
	return envelopeOf(c.f.Turns.ChooseAccount(ctx, a.AgentID, a.AccountID, a.Choice))
}

// projection serves continuity/projection {edgeId}: the successor context
// byte for byte as session/create carried it. A success is written as a
// wire.RawResult, so the stored bytes are not re-encoded; a failure is an
// ordinary Remote envelope.
func (c *Continuity) projection(ctx context.Context, a edgeArgs) any {
	b, err := c.f.Lineage.Projection(ctx, a.EdgeID)
	if err != nil {
		return Failure(err)
	}
	res, err := wire.Object().Set("ok", true).Raw("value", b).Result()
	if err != nil {
		return Failure(err)
	}
	return res
}

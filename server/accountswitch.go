package server

import (
	"context"

	"github.com/continuity-dev/continuity/turns"
)

// accountSwitch serves continuity/accountSwitch. Without a choice it asks
// whether switching to accountId must pause (and publishes the
// accountSwitch notice when it does). With one it is the person's answer
// to the pause that agent/request raised (ACCOUNT_SWITCH_PAUSED): enable
// writes the session's own row on first, then enable and keepOff accept
// the account so the next agent/request goes through; cancel keeps the
// old account, and a request on the new one pauses again.
func accountSwitch(svc *services, ctx context.Context, a accountSwitchArgs) any {
	switch a.Choice {
	case "":
		return envelopeOf(svc.turns.AccountSwitch(ctx, a.AgentID, a.AccountID))
	case turns.ChoiceEnable:
		if _, err := svc.session.EnableForSession(ctx, a.AgentID); err != nil {
			return envelopeOf(nil, err)
		}
	}
	return envelopeOf(svc.turns.ChooseAccount(ctx, a.AgentID, a.AccountID, a.Choice))
}

package remote

import "context"

// EnableForSession writes the session's own row on, at the namespace
// revision it reads now: it is the enable choice of an account-switch pause
// (continuity/accountSwitch with choice "enable"), an explicit answer of
// the person to a prompt that showed the loss disclosure, so there is no
// client revision to compare. The write is still a CAS under that
// revision, and a real change is announced like set's.
func (s *HistoryPolicy) EnableForSession(ctx context.Context, agentID string) (PolicyView, error) {
	agent, err := s.lookup(ctx, agentID)
	if err != nil {
		return PolicyView{}, err
	}
	cur, err := s.policy.Resolve(ctx, agentID, agent.Header)
	if err != nil {
		return PolicyView{}, err
	}
	on := true
	r, wrote, err := s.policy.Set(ctx, agentID, agent.Header, cur.Revision, &on)
	if err != nil {
		return PolicyView{}, err
	}
	v := s.view(agentID, r)
	if wrote {
		s.announceView(ctx, agentID, v)
	}
	return v, nil
}

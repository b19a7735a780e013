package continuation

import (
	"encoding/json"
	"sort"

	"github.com/continuity-dev/continuity/diag"
)

// StateItem is one piece of structured state carried exactly, never as
// prose: the plan revision, a pending run or tool call (keeping its run and
// call identities), a pinned tool, or a pinned resource.
type StateItem struct {
	Kind     string          `json:"kind"` // plan, pending_run, pinned_tool, pinned_resource
	Key      string          `json:"key"`
	Action   string          `json:"action,omitempty"` // plan: carry, close or omit; others: carry
	Revision string          `json:"revision,omitempty"`
	RunKind  string          `json:"runKind,omitempty"` // pending_run: run or tool_call
	CallID   string          `json:"callId,omitempty"`
	EventID  string          `json:"eventId,omitempty"` // where the predecessor recorded it
	Data     json.RawMessage `json:"data,omitempty"`    // a carried plan's exact data
}

// State kinds.
const (
	StatePlan           = "plan"
	StatePendingRun     = "pending_run"
	StatePinnedTool     = "pinned_tool"
	StatePinnedResource = "pinned_resource"
)

// planState is the predecessor's plan as the transfer sees it.
type planState struct {
	revision, eventID string
	data              json.RawMessage
}

// buildTransfer checks the requested transfer against what is actually
// pending and returns the state items to carry. Every unsettled effect must
// be listed in transfer.pendingRuns (carried explicitly); listing anything
// that is not pending is refused, so a successor never claims a run it
// does not own. A plan is carried by default when one exists.
func buildTransfer(t *Transfer, pending []pendingEffect, plan *planState) ([]StateItem, error) {
	if t == nil {
		t = &Transfer{}
	}
	listed := map[string]bool{}
	for _, id := range t.PendingRuns {
		listed[id] = true
	}
	var items []StateItem
	var missing []string
	byID := map[string]bool{}
	for _, p := range pending {
		byID[p.ID] = true
		if !listed[p.ID] {
			missing = append(missing, p.ID)
			continue
		}
		items = append(items, StateItem{Kind: StatePendingRun, Key: p.ID, Action: "carry", RunKind: p.Kind, CallID: p.CallID, EventID: seqID(p.Seq)})
	}
	if len(missing) > 0 {
		return nil, diag.Newf(diag.UnsettledEffects, "%d pending runs are neither listed in transfer.pendingRuns nor settled", len(missing)).
			With("pendingRuns", missing)
	}
	var unknown []string
	for _, id := range t.PendingRuns {
		if !byID[id] {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, diag.Newf(diag.TransferInvalid, "%d listed runs are not pending in the predecessor", len(unknown)).With("runs", unknown)
	}
	action := t.Plan
	if action == "" && plan != nil {
		action = "carry"
	}
	if action != "" {
		if plan == nil {
			if action != "omit" {
				return nil, diag.Newf(diag.TransferInvalid, "transfer.plan is %s but the predecessor has no plan", action).With("plan", action)
			}
		} else {
			it := StateItem{Kind: StatePlan, Key: "plan", Action: action, Revision: plan.revision, EventID: plan.eventID}
			if action == "carry" {
				it.Data = plan.data
			}
			items = append(items, it)
		}
	}
	for _, name := range t.PinnedTools {
		items = append(items, StateItem{Kind: StatePinnedTool, Key: name, Action: "carry"})
	}
	for _, url := range t.PinnedResources {
		items = append(items, StateItem{Kind: StatePinnedResource, Key: url, Action: "carry"})
	}
	return items, nil
}

func seqID(seq int64) string {
	if seq <= 0 {
		return ""
	}
	return eventID(seq)
}

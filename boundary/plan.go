package boundary

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// DSH's agent keeps its plan as a todo list, written whole by each
// todo/write event: data.todos (or data.items) is the list, each entry
// {id?, content | text | title, status}. The latest todo/write is the
// session's plan (kind plan, a singleton: earlier lists are superseded
// plans, residue). A current plan stated after the pin's event serves
// that pin: the record traces it (Decision.Plan: its event, the pin
// digest, the step ids and statuses), and a RESEED's query lists it under
// a header that names the pin, which step 7 checks. A list the reader
// cannot find is counted as unreadable, never guessed at.

// EventTodoWrite is DSH's plan event.
const EventTodoWrite = "todo/write"

// Bounds on what a plan keeps.
const (
	maxPlanSteps   = 256
	maxStepID      = 128
	maxStepStatus  = 32
	maxStepContent = 1024
)

// PlanStep is one step of the session's plan as the record names it: its
// id (the entry's id, or its 1-based position when it has none) and its
// status. The step's text is in the query, never in the record.
type PlanStep struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// PlanRecord traces the session's current plan to the pin it serves.
type PlanRecord struct {
	EventID   string     `json:"eventId"`
	PinDigest string     `json:"pinDigest"`
	Steps     []PlanStep `json:"steps"`
}

// planStep is a step with its text, for the query.
type planStep struct {
	PlanStep
	content string
}

// parseTodo reads a todo/write into a plan item.
func parseTodo(seq int64, data []byte, p *parsed) {
	list := gjson.GetBytes(data, "todos")
	if !list.IsArray() {
		list = gjson.GetBytes(data, "items")
	}
	if !list.IsArray() {
		p.unreadable = true
		return
	}
	var steps []planStep
	ok := true
	list.ForEach(func(_, e gjson.Result) bool {
		if len(steps) == maxPlanSteps {
			return false
		}
		content := firstString(e, "content", "text", "title", "description")
		status := firstString(e, "status", "state")
		if !e.IsObject() || content == "" {
			ok = false
			return false
		}
		id := strconv.Itoa(len(steps) + 1)
		if v := e.Get("id"); v.Type == gjson.String && v.Str != "" || v.Type == gjson.Number {
			id = v.String()
		}
		if status == "" {
			status = "pending"
		}
		steps = append(steps, planStep{PlanStep{bounded(id, maxStepID), bounded(status, maxStepStatus)}, bounded(oneLine(content), maxStepContent)})
		return true
	})
	if !ok {
		p.unreadable = true
		return
	}
	it := Item{Seq: seq, Kind: KindPlan, Tokens: EstimateTokens(string(data)), steps: steps}
	it.Text = renderSteps(steps)
	p.items = append(p.items, it)
}

func firstString(e gjson.Result, names ...string) string {
	for _, n := range names {
		if v := e.Get(n); v.Type == gjson.String && strings.TrimSpace(v.Str) != "" {
			return v.Str
		}
	}
	return ""
}

// renderSteps is the plan as the query lists it, one step a line.
func renderSteps(steps []planStep) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "- [%s] %s: %s\n", s.Status, s.ID, s.content)
	}
	return b.String()
}

// planRecord traces the current plan to the pin.
func planRecord(plan *Item, pin Pin) *PlanRecord {
	if plan == nil {
		return nil
	}
	r := &PlanRecord{EventID: eventID(plan.Seq), PinDigest: pin.Digest, Steps: []PlanStep{}}
	for _, s := range plan.steps {
		r.Steps = append(r.Steps, s.PlanStep)
	}
	return r
}

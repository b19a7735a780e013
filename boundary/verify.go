package boundary

import (
	"regexp"
	"strconv"
	"strings"
)

// Step 7 beyond the pin and the next action: a worker given only the query
// must also be able to answer the person's current request, see every
// confirmed effect, and read the person's constraints as positive state.
// verifyState checks exactly that on the query's text, parsed back alone.

// Problems verifyState reports.
const (
	ProblemRequestNotInQuery  = "request_not_in_query"
	ProblemEffectsNotInQuery  = "effects_not_in_query"
	ProblemNegationNotRestate = "negation_not_restated"
	ProblemPlanNotTraced      = "plan_not_traced"
)

var (
	requestHeader = regexp.MustCompile(`^Current request \[event (0|[1-9][0-9]{0,17})\]:$`)
	planHeader    = regexp.MustCompile(`^Plan \[event (0|[1-9][0-9]{0,17}), pin (sha256:[0-9a-f]{64})\]:$`)
	effectEvent   = regexp.MustCompile(`\(event (0|[1-9][0-9]{0,17})\)|at event (0|[1-9][0-9]{0,17})`)
)

// stateReadBack is what verifyState recovers from a query.
type stateReadBack struct {
	request      string
	requestEvent int64
	hasRequest   bool
	effects      []int64 // the events the confirmed effects name, in order
	plan         string
	planEvent    int64
	planPin      string
	hasPlan      bool
	constraints  []string // the constraint lines
}

// parseState reads the request block and the effect and constraint lists
// of q. The task block is skipped whole: its text is the pin's, verbatim,
// and may contain anything.
func parseState(q string) stateReadBack {
	var r stateReadBack
	lines := strings.Split(q, "\n")
	list := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if taskHeader.MatchString(l) {
			if _, end, ok := fenced(lines, i+1); ok {
				i, list = end, ""
				continue
			}
		}
		if m := requestHeader.FindStringSubmatch(l); m != nil && !r.hasRequest {
			if body, end, ok := fenced(lines, i+1); ok {
				r.request, r.hasRequest = body, true
				r.requestEvent, _ = strconv.ParseInt(m[1], 10, 64)
				i, list = end, ""
				continue
			}
		}
		if m := planHeader.FindStringSubmatch(l); m != nil && !r.hasPlan {
			if body, end, ok := fenced(lines, i+1); ok {
				r.plan, r.planPin, r.hasPlan = body, m[2], true
				r.planEvent, _ = strconv.ParseInt(m[1], 10, 64)
				i, list = end, ""
				continue
			}
		}
		switch {
		case l == "Confirmed effects:" || l == "Constraints:":
			list = l
		case l == "" || !strings.HasPrefix(l, "- "):
			list = ""
		case list == "Constraints:":
			r.constraints = append(r.constraints, l[2:])
		case list == "Confirmed effects:":
			if m := effectEvent.FindStringSubmatch(l); m != nil {
				n, _ := strconv.ParseInt(m[1]+m[2], 10, 64)
				r.effects = append(r.effects, n)
			}
		}
	}
	return r
}

// verifyState checks q against what it was built from: the current
// request's block with its event and its restated text, the confirmed
// effects' events, and constraints and request free of unrestated
// dismissals. It returns the problems found.
func verifyState(q string, b built, c current) []string {
	r := parseState(q)
	var problems []string
	if c.request != nil && (!r.hasRequest || r.requestEvent != c.request.Seq || strings.TrimSpace(r.request) == "" || r.request != b.request) {
		problems = append(problems, ProblemRequestNotInQuery)
	}
	if len(r.effects) != len(b.effects) || len(b.effects) != len(c.effects) {
		problems = append(problems, ProblemEffectsNotInQuery)
	} else {
		for i := range r.effects {
			if r.effects[i] != c.effects[i].Seq {
				problems = append(problems, ProblemEffectsNotInQuery)
				break
			}
		}
	}
	if c.plan != nil && (!r.hasPlan || r.planPin != c.pin.Digest || r.planEvent != c.plan.Seq || r.plan != b.plan || b.plan == "") {
		problems = append(problems, ProblemPlanNotTraced)
	}
	negated := false
	for _, l := range append(r.constraints, r.request) {
		if _, ok := dismissed(l); ok {
			negated = true
		}
	}
	if negated {
		problems = append(problems, ProblemNegationNotRestate)
	}
	return problems
}

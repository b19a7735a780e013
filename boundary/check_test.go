package boundary

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

func runStep(t *testing.T, s *Service, db *sql.DB, st step, d Decision) Decision {
	t.Helper()
	ctx := context.Background()
	if st.tamper != "" {
		if _, err := db.Exec(st.tamper); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range st.events {
		s.Observe(sid, e)
	}
	if st.pin != nil {
		var id int64
		if st.pin[0] != "" {
			id = mustInt(t, st.pin[0])
		}
		p, err := s.PinTask(ctx, sid, id, st.pin[1], st.pin[2])
		if err != nil {
			t.Fatal(err)
		}
		if p.Digest != Digest(p.EventID, st.pin[1]) {
			t.Fatalf("pin digest %s does not address its text", p.Digest)
		}
	}
	if st.decide != "" {
		var err error
		if d, err = s.Decide(ctx, sid, st.decide); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func checkWant(t *testing.T, d Decision, w want) {
	t.Helper()
	if d.Decision != w.decision || d.Reason != w.reason {
		t.Fatalf("decision %s/%s, want %s/%s (numbers %+v)", d.Decision, d.Reason, w.decision, w.reason, d.Numbers)
	}
	if w.complete != nil {
		if d.Reseed == nil || d.Reseed.Complete != *w.complete {
			t.Fatalf("reseed %+v, want complete=%v", d.Reseed, *w.complete)
		}
		if d.Reseed.Complete != (d.Reseed.Projection != nil) {
			t.Errorf("a projection must be offered exactly when the reseed is complete")
		}
	}
	for _, p := range w.problems {
		if !contains(d.Reseed.Problems, p) {
			t.Errorf("problems %v lack %s", d.Reseed.Problems, p)
		}
	}
	if w.pinProblem != "" {
		if d.Pin.Recoverable || d.Pin.Problem != w.pinProblem {
			t.Errorf("pin %+v, want unrecoverable with %s", d.Pin, w.pinProblem)
		}
	} else if !d.Pin.Recoverable {
		t.Errorf("pin unexpectedly unrecoverable: %+v", d.Pin)
	}
	for _, k := range w.kept {
		if !contains(refs(d.Kept), k) {
			t.Errorf("kept %v lacks %s", refs(d.Kept), k)
		}
	}
	for _, k := range w.dropped {
		if !contains(refs(d.Dropped), k) {
			t.Errorf("dropped %v lacks %s", refs(d.Dropped), k)
		}
	}
	checkProjection(t, d, w)
	checkRecordSchema(t, d)
}

func checkProjection(t *testing.T, d Decision, w want) {
	t.Helper()
	if len(w.queryHas)+len(w.queryLacks) > 0 || w.smallerThan || w.continueAs != "" {
		if d.Reseed == nil || d.Reseed.Projection == nil {
			t.Fatalf("no projection offered: %+v", d.Reseed)
		}
	}
	if d.Reseed == nil || d.Reseed.Projection == nil {
		return
	}
	p := d.Reseed.Projection
	q := p.Query
	for _, s := range w.queryHas {
		if !strings.Contains(q, s) {
			t.Errorf("query lacks %q:\n%s", s, q)
		}
	}
	for _, s := range w.queryLacks {
		if strings.Contains(strings.ToLower(q), strings.ToLower(s)) {
			t.Errorf("query still says %q:\n%s", s, q)
		}
	}
	if w.continueAs != "" && p.Reason != w.continueAs {
		t.Errorf("continue_session reason %s, want %s", p.Reason, w.continueAs)
	}
	if w.smallerThan && d.Numbers.QueryTokens >= d.Numbers.RetainedTokens {
		t.Errorf("query has %d tokens, retained history %d", d.Numbers.QueryTokens, d.Numbers.RetainedTokens)
	}
	// Step 7 seen from outside: the query alone names the pin and the next action.
	r := parseQuery(q)
	if !r.hasTask || r.digest != *d.Pin.Digest || Digest(r.eventID, r.task) != *d.Pin.Digest {
		t.Errorf("the query does not carry pin %s", *d.Pin.Digest)
	}
	if !r.hasNext || len(p.Handoff.NextActions) != 1 || r.next != p.Handoff.NextActions[0] {
		t.Errorf("the query's next action %q differs from the handoff's %v", r.next, p.Handoff.NextActions)
	}
	if HasNegatedResidue(r.outside.String()) {
		t.Errorf("negated residue left in the query:\n%s", q)
	}
}

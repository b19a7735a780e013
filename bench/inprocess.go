package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/continuity-dev/continuity/filter"
)

// pluginOptions are the filter options the plugin uses for
// github-copilot-preview; the validating variant is the filter alone, the
// prevalidated one is how the plugin runs it after the wire has
// validated the frame.
var pluginOptions = filter.Options{StripPairedIDs: true}

// filterOp is one first call of a fresh turn on p, checked to omit every
// reasoning item (a turn's first payload is all history).
func filterOp(p Payload, opts filter.Options) op {
	ctx := context.Background()
	return timed(func() error {
		res, err := filter.NewTurn(opts).Apply(ctx, p.Body, nil)
		if err != nil {
			return err
		}
		if res.Omitted.Items != p.Reasoning() {
			return fmt.Errorf("bench: the filter omitted %d of %d reasoning items", res.Omitted.Items, p.Reasoning())
		}
		return nil
	})
}

// jsonOp is the encoding/json decode-filter-encode of p.
func jsonOp(p Payload) op {
	return timed(func() error {
		_, omitted, err := new(JSONTurn).Apply(p.Body)
		if err != nil {
			return err
		}
		if omitted != p.Reasoning() {
			return fmt.Errorf("bench: encoding/json omitted %d of %d reasoning items", omitted, p.Reasoning())
		}
		return nil
	})
}

// shaOp is the hashing limit on p.
func shaOp(p Payload) op {
	return timed(func() error {
		hashCiphers(p)
		return nil
	})
}

// memmoveOp is the copy limit: one copy of the payload into a buffer
// allocated once.
func memmoveOp(p Payload) op {
	dst := make([]byte, len(p.Body))
	return timed(func() error {
		copy(dst, p.Body)
		return nil
	})
}

// inProcessOp is the operation of an in-process case on p.
func inProcessOp(c string, p Payload) (op, error) {
	switch c {
	case CaseFilter:
		return filterOp(p, pluginOptions), nil
	case CaseFilterPre:
		opts := pluginOptions
		opts.Prevalidated = true
		return filterOp(p, opts), nil
	case CaseSHA256:
		return shaOp(p), nil
	case CaseMemmove:
		return memmoveOp(p), nil
	case CaseJSON:
		return jsonOp(p), nil
	}
	return nil, fmt.Errorf("bench: %q is not an in-process case", c)
}

// inProcess measures the in-process cases on p, interleaved.
func (r *runner) inProcess(group string, p Payload, cases []string) error {
	var cs []benchCase
	for _, c := range cases {
		fn, err := inProcessOp(c, p)
		if err != nil {
			return err
		}
		cs = append(cs, benchCase{name: c, job: job{fn: fn, b: r.budget()}})
	}
	return r.measureCases(group, p, cs)
}

// benchCase is a named job whose sample becomes a row.
type benchCase struct {
	name string
	job  job
}

// measureCases measures cs on p together (interleave) and adds a row per
// case.
func (r *runner) measureCases(group string, p Payload, cs []benchCase) error {
	var names []string
	jobs := make([]job, len(cs))
	for i, c := range cs {
		names = append(names, c.name)
		jobs[i] = c.job
	}
	r.progress(p, strings.Join(names, ", "))
	ss, err := interleave(jobs)
	if err != nil {
		return fmt.Errorf("%s on %s %s: %w", strings.Join(names, ", "), p.Kind, FormatSize(p.Size), err)
	}
	for i, c := range cs {
		row := rowOf(group, c.name, p, ss[i])
		switch {
		case c.name == CaseSHA256:
			row.HashedBytes = hashedBytes(p)
			row.MBps = mbps(row.HashedBytes, ss[i].times[0])
		case c.job.remote:
			row = wireRow(row, ss[i])
		}
		r.rep.Rows = append(r.rep.Rows, row)
	}
	return nil
}

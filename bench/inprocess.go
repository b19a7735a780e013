package bench

import (
	"context"
	"fmt"

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

// inProcess measures the in-process cases on p.
func (r *runner) inProcess(group string, p Payload, cases []string) error {
	for _, c := range cases {
		var fn op
		switch c {
		case CaseFilter:
			fn = filterOp(p, pluginOptions)
		case CaseFilterPre:
			opts := pluginOptions
			opts.Prevalidated = true
			fn = filterOp(p, opts)
		case CaseSHA256:
			fn = shaOp(p)
		case CaseMemmove:
			fn = memmoveOp(p)
		case CaseJSON:
			fn = jsonOp(p)
		default:
			return fmt.Errorf("bench: %q is not an in-process case", c)
		}
		r.progress(p, c)
		s, err := measure(r.budget(), fn)
		if err != nil {
			return fmt.Errorf("%s on %s %s: %w", c, p.Kind, FormatSize(p.Size), err)
		}
		row := rowOf(group, c, p, s)
		if c == CaseSHA256 {
			row.HashedBytes = hashedBytes(p)
			row.MBps = mbps(row.HashedBytes, s.times[0])
		}
		r.rep.Rows = append(r.rep.Rows, row)
	}
	return nil
}

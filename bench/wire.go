package bench

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/continuity-dev/continuity/filter"
)

// wire measures the llm/payload round trip through the plugin and the
// same frame through cat. Every round trip is the first payload of a
// fresh turn, so all reasoning in it is history and is omitted; payloads
// without reasoning come back "unchanged" (only the short result).
func (r *runner) wire(p Payload) error {
	if r.plug == nil {
		return nil
	}
	want, err := filter.NewTurn(pluginOptions).Apply(context.Background(), p.Body, nil)
	if err != nil {
		return err
	}
	r.progress(p, CaseWire)
	// The plugin's latency is measured in the other process; this
	// process's own garbage collector (its heap holds every generated
	// payload) must not take a core away mid-sample on a 2-core machine.
	// The client reuses its buffers, so pausing GC here costs little.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	s, err := measure(r.wireBudget(p.Size), r.wireOp(p.Body, want))
	if err != nil {
		return fmt.Errorf("wire on %s %s: %w", p.Kind, FormatSize(p.Size), err)
	}
	r.rep.Rows = append(r.rep.Rows, wireRow(rowOf(GroupSize, CaseWire, p, s)))
	if r.pipe == nil {
		return nil
	}
	r.progress(p, CasePipe)
	frame := r.plug.payloadFrame(nil, p.Body)
	s, err = measure(r.wireBudget(p.Size), func() (time.Duration, error) { return r.pipe.Copy(frame) })
	if err != nil {
		return fmt.Errorf("pipe copy on %s %s: %w", p.Kind, FormatSize(p.Size), err)
	}
	r.rep.Rows = append(r.rep.Rows, wireRow(rowOf(GroupSize, CasePipe, p, s)))
	return nil
}

// wireOp is one llm/payload in a new turn. Every reply is checked against
// the filter's result: outcome and count always, the bytes on the first
// (warm-up) call.
func (r *runner) wireOp(body []byte, want filter.Result) op {
	outcome := "unchanged"
	if want.Output != nil {
		outcome = "filtered"
	}
	first := true
	return func() (time.Duration, error) {
		if err := r.plug.NextTurn(); err != nil {
			return 0, err
		}
		reply, d, err := r.plug.Payload(body)
		if err != nil {
			return 0, err
		}
		if reply.Outcome != outcome || reply.Omitted != want.Omitted.Items ||
			first && !bytes.Equal(reply.Payload, want.Output) {
			return 0, fmt.Errorf("%w: outcome %s, %d items omitted", errWrongReply, reply.Outcome, reply.Omitted)
		}
		first = false
		return d, nil
	}
}

// wireRow drops the client-side allocation and CPU figures: the work
// being measured happens in the other process.
func wireRow(row Row) Row {
	row.AllocsPerOp, row.AllocPerByte, row.CPUNsPerOp = 0, 0, 0
	return row
}

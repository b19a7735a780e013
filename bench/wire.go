package bench

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/continuity-dev/continuity/filter"
)

// wireCases are the llm/payload round trip through the plugin and the
// same frame through cat, as cases measured alongside the in-process ones
// of the same payload. Every round trip is the first payload of a fresh
// turn, so all reasoning in it is history and is omitted; payloads
// without reasoning come back "unchanged" (only the short result).
func (r *runner) wireCases(p Payload) ([]benchCase, error) {
	if r.plug == nil {
		return nil, nil
	}
	want, err := filter.NewTurn(pluginOptions).Apply(context.Background(), p.Body, nil)
	if err != nil {
		return nil, err
	}
	b := r.wireBudget(p.Size)
	// A few calls before sampling let the plugin's buffers grow to the
	// payload's size and its collector settle on the new heap.
	warm := max(1, min(10, b.min/20))
	cs := []benchCase{{name: CaseWire, job: job{fn: r.wireOp(p.Body, want), b: b, warmups: warm, remote: true, peer: r.plug.c.peerCPU}}}
	if r.pipe != nil {
		frame := r.plug.payloadFrame(nil, p.Body)
		cs = append(cs, benchCase{name: CasePipe, job: job{b: b, warmups: warm, remote: true, peer: r.pipe.c.peerCPU,
			fn: func() (time.Duration, error) { return r.pipe.Copy(frame) }}})
	}
	return cs, nil
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

// wireRow drops the client-side allocation figures, the work being
// measured happening in the other process, and moves the CPU time to the
// columns of a round trip: this process's side and the peer's (s).
func wireRow(row Row, s sample) Row {
	row.AllocsPerOp, row.AllocPerByte, row.CPUNsPerOp = 0, 0, 0
	row.HostCPUNsPerOp, row.PeerCPUNsPerOp = s.cpu.Nanoseconds(), s.peerCPU.Nanoseconds()
	return row
}

package bench

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// The event-stream case: DSH forwards every session event, and a tool's
// output can be tens of MiB. The read loop must scan such an event, never
// decode it, or the frames behind it wait (a decoded 17 MiB tool/result
// held later frames for about 340 ms). Each step runs as DSH's loop runs
// it: step/start, agent/request, the 1 MiB llm/payload (timed), the
// assistant's tool/call, then the tool/result — 17 MiB on every other
// step, a line on the others (the baseline, in the same run). The
// agent/request after a large result is answered only once the result has
// been applied (notifications apply before later requests), so its
// latency is what the large event costs the read loop.
const (
	eventToolBytes    = 17 << 20
	eventPayloadBytes = 1 << 20
)

// EventStream is the event-stream case's result.
type EventStream struct {
	Steps           int   `json:"steps"` // with a large result (as many without)
	ToolResultBytes int   `json:"toolResultBytes"`
	PayloadBytes    int   `json:"payloadBytes"`
	P50Ns           int64 `json:"p50Ns"` // payloads of steps after a large result
	P99Ns           int64 `json:"p99Ns"`
	BaselineP50Ns   int64 `json:"baselineP50Ns"` // payloads of steps after a one-line result
	BaselineP99Ns   int64 `json:"baselineP99Ns"`
	// AdmitP50Ns is the agent/request round trip right after a large
	// result: the read loop's cost of applying it; AdmitBaselineP50Ns the
	// same after a one-line result.
	AdmitP50Ns         int64   `json:"admitP50Ns"`
	AdmitBaselineP50Ns int64   `json:"admitBaselineP50Ns"`
	VsBaseline         float64 `json:"p99VsBaseline"`
}

// eventStream measures the event-stream case on the running plugin.
func (r *runner) eventStream() error {
	if r.plug == nil || r.cfg.EventSteps <= 0 {
		return nil
	}
	p, err := Generate(KindTypical, eventPayloadBytes)
	if err != nil {
		return err
	}
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "bench: %-12s %8s  %d steps behind %s tool results\n", "events", FormatSize(len(p.Body)), r.cfg.EventSteps, FormatSize(eventToolBytes))
	}
	tools := newToolOutput(eventToolBytes)
	// As for the wire cases: this process's collector must not take a core
	// from the plugin mid-step. The steps' own garbage (event lines of a
	// few hundred bytes) is small; the large result is written from fill.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if err := r.plug.NextTurn(); err != nil {
		return err
	}
	var heavy, light, admitHeavy, admitLight []time.Duration
	after := false // the previous step's result was large
	for i := 0; i <= 2*r.cfg.EventSteps; i++ {
		if i > 0 {
			start := time.Now()
			if err := r.plug.NextStep(); err != nil {
				return err
			}
			if after {
				admitHeavy = append(admitHeavy, time.Since(start))
			} else {
				admitLight = append(admitLight, time.Since(start))
			}
		}
		reply, d, err := r.plug.Payload(p.Body)
		if err != nil {
			return fmt.Errorf("event stream step %d: %w", i+1, err)
		}
		if reply.Outcome == "native" {
			return fmt.Errorf("event stream step %d: the payload went native", i+1)
		}
		switch {
		case i == 0: // the turn's first step has no result before it
		case after:
			heavy = append(heavy, d)
		default:
			light = append(light, d)
		}
		after = i%2 == 0
		if err := tools.send(r.plug, after); err != nil {
			return err
		}
	}
	for _, s := range [][]time.Duration{heavy, light, admitHeavy, admitLight} {
		sortDurations(s)
	}
	es := &EventStream{Steps: len(heavy), ToolResultBytes: eventToolBytes, PayloadBytes: len(p.Body),
		P50Ns: quantile(heavy, 0.5).Nanoseconds(), P99Ns: quantile(heavy, 0.99).Nanoseconds(),
		BaselineP50Ns: quantile(light, 0.5).Nanoseconds(), BaselineP99Ns: quantile(light, 0.99).Nanoseconds(),
		AdmitP50Ns: quantile(admitHeavy, 0.5).Nanoseconds(), AdmitBaselineP50Ns: quantile(admitLight, 0.5).Nanoseconds()}
	if es.BaselineP99Ns > 0 {
		es.VsBaseline = float64(es.P99Ns) / float64(es.BaselineP99Ns)
	}
	r.rep.Events = es
	return nil
}

// toolOutput sends each step's tool/call and tool/result (format 4) in
// the bench session; a large result's text is written in pieces so it is
// never copied into one frame buffer.
type toolOutput struct {
	call int
	fill []byte // the large result's text, JSON-escaped
}

func newToolOutput(size int) *toolOutput {
	line := []byte(`ok   \tgithub.com/example/pkg/sub\t0.123s coverage: 81.2% of statements\n`)
	return &toolOutput{fill: bytes.Repeat(line, size/len(line)+1)[:size]}
}

// send writes one tool/call and its tool/result into p's current step.
func (o *toolOutput) send(p *Plugin, large bool) error {
	o.call++
	id := `"call_` + strconv.Itoa(o.call) + `"`
	at := `"turn":` + strconv.Itoa(p.turn) + `,"step":` + strconv.Itoa(p.step)
	if err := p.event("tool/call", `{`+at+`,"callId":`+id+`,"name":"bash","arguments":"{\"command\":\"go test ./...\"}"}`); err != nil {
		return err
	}
	call := p.seq
	text := []byte("ok")
	if large {
		text = o.fill
	}
	p.seq++
	head := `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":` + strconv.Quote(p.session) + `,"event":{"type":"tool/result","seq":` +
		strconv.Itoa(p.seq) + `,"time":` + strconv.FormatInt(time.Now().UnixMilli(), 10) + `,"data":{` + at + `,"message":{"role":"tool",` +
		`"source":{"kind":"tool","callId":` + id + `},"toolCallId":` + id + `,"content":[{"type":"text","text":"`
	tail := `"}]}},"sourceEventSeqs":[` + strconv.Itoa(call) + `],"surfaceOp":"append"}}}` + "\n"
	for _, b := range [][]byte{[]byte(head), text, []byte(tail)} {
		if err := p.c.Write(b); err != nil {
			return err
		}
	}
	return p.event("step/end", `{`+at+`}`)
}

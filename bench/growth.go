package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// reasoningCounts measures the filter and SHA-256 on payloads of one size
// with more and more reasoning items: hashing cost follows the ciphertext
// bytes, and the per-item overhead shows in ns/item.
func (r *runner) reasoningCounts() error {
	for _, n := range r.cfg.Counts {
		if r.cfg.CountSize <= 0 {
			return nil
		}
		p := fromSpec(KindReasoning+"/"+strconv.Itoa(n), payloadgen.ReasoningHeavy(r.cfg.CountSize, n))
		if err := r.inProcess(GroupReasoning, p, []string{CaseFilter, CaseSHA256}); err != nil {
			return err
		}
	}
	return nil
}

// sessionRepeats is how often each turn of the session table is measured;
// the best time counts.
const sessionRepeats = 3

// session measures a long session: at turn k the payload holds all
// earlier history and one more stretch of steps, as an agent's requests
// do. The per-turn cost must follow the payload's size and nothing else
// (no state that grows with the session), so ns per byte stays flat.
func (r *runner) session() error {
	if r.cfg.SessionTurns <= 0 || r.cfg.SessionSize <= 0 {
		return nil
	}
	spec := payloadgen.Typical(r.cfg.SessionSize)
	spec.Reasoning = max(1, r.cfg.SessionSize/(64<<10)) // reasoning all the way through
	h := newHistory(payloadgen.Generate(spec).Body)
	turns := r.cfg.SessionTurns
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "bench: %-12s %8s  %d turns\n", "session", FormatSize(r.cfg.SessionSize), turns)
	}
	for k := 1; k <= turns; k++ {
		step1 := h.prefix(h.cut(k, turns+1))
		step2 := h.prefix(h.cut(k+1, turns+1))
		row := TurnRow{Turn: k, HistoryBytes: len(step1), PayloadBytes: len(step2)}
		var fs, ws []time.Duration
		for range sessionRepeats {
			d, err := filterSteps(step1, step2)
			if err != nil {
				return fmt.Errorf("session turn %d: %w", k, err)
			}
			fs = append(fs, d)
			if r.plug != nil {
				if d, err = r.wireSteps(step1, step2); err != nil {
					return fmt.Errorf("session turn %d on the wire: %w", k, err)
				}
				ws = append(ws, d)
			}
		}
		bytes := float64(len(step1) + len(step2))
		row.FilterNs = slices.Min(fs).Nanoseconds()
		row.FilterNsPerByte = float64(row.FilterNs) / bytes
		if len(ws) > 0 {
			row.WireNs = slices.Min(ws).Nanoseconds()
			row.WireNsPerByte = float64(row.WireNs) / bytes
		}
		r.rep.Session = append(r.rep.Session, row)
	}
	r.rep.SessionGrowth = sessionGrowth(r.rep.Session)
	return nil
}

// filterSteps runs both steps of a turn through a fresh filter.Turn.
func filterSteps(step1, step2 []byte) (time.Duration, error) {
	t := filter.NewTurn(pluginOptions)
	start := time.Now()
	if _, err := t.Apply(context.Background(), step1, nil); err != nil {
		return 0, err
	}
	if _, err := t.Apply(context.Background(), step2, nil); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// wireSteps sends both steps of a new turn through the plugin.
func (r *runner) wireSteps(step1, step2 []byte) (time.Duration, error) {
	if err := r.plug.NextTurn(); err != nil {
		return 0, err
	}
	_, d1, err := r.plug.Payload(step1)
	if err != nil {
		return 0, err
	}
	if err := r.plug.NextStep(); err != nil {
		return 0, err
	}
	_, d2, err := r.plug.Payload(step2)
	return d1 + d2, err
}

// sessionGrowth is the per-byte cost of the last turn over the median of
// the later half's (filter, wire); about 1 means flat.
func sessionGrowth(rows []TurnRow) [2]float64 {
	if len(rows) < 2 {
		return [2]float64{}
	}
	half := rows[len(rows)/2:]
	last := rows[len(rows)-1]
	ratio := func(get func(TurnRow) float64) float64 {
		var v []float64
		for _, x := range half {
			v = append(v, get(x))
		}
		slices.Sort(v)
		if m := v[len(v)/2]; m > 0 {
			return get(last) / m
		}
		return 0
	}
	return [2]float64{
		ratio(func(x TurnRow) float64 { return x.FilterNsPerByte }),
		ratio(func(x TurnRow) float64 { return x.WireNsPerByte }),
	}
}

// history is a generated session body split at its input items, so that
// any prefix of the items makes a valid payload.
type history struct {
	body  []byte
	ends  []int // end offset of each input item
	close int   // offset of the input array's ']'
}

func newHistory(body []byte) *history {
	h := &history{body: body}
	input := gjson.Get(view(body), "input")
	input.ForEach(func(_, it gjson.Result) bool {
		h.ends = append(h.ends, it.Index+len(it.Raw))
		return true
	})
	h.close = input.Index + len(input.Raw) - 1
	return h
}

// cut is the number of items whose prefix is about k/n of the body.
func (h *history) cut(k, n int) int {
	target := len(h.body) * k / n
	i, _ := slices.BinarySearch(h.ends, target)
	return max(1, min(i+1, len(h.ends)))
}

// prefix is the payload made of the first m items.
func (h *history) prefix(m int) []byte {
	end := h.ends[m-1]
	out := make([]byte, 0, end+len(h.body)-h.close)
	return append(append(out, h.body[:end]...), h.body[h.close:]...)
}

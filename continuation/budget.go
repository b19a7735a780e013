package continuation

import "github.com/continuity-dev/continuity/hostapi"

// takeFitting splits evs into the part that fits in room tokens as one
// section and the rest. Pinned ranges keep their beginning; recent tiers
// (newest=true) keep their end, the exchanges closest to the initiating
// message. The estimate is confirmed on the real section bytes.
func takeFitting(base Section, evs []hostapi.Event, room int, newest bool) (inc, rest []hostapi.Event) {
	if len(evs) == 0 || room <= 0 {
		return nil, evs
	}
	bytesUsed := len(marshal(rangeSection(base, evs[:1]))) - len(marshal(sectionEvents(evs[:1])[0]))
	n := 0
	for n < len(evs) {
		i := n
		if newest {
			i = len(evs) - 1 - n
		}
		b := len(marshal(sectionEvents(evs[i : i+1])[0]))
		if n > 0 {
			b++ // the comma
		}
		if tokensForLen(bytesUsed+b) > room {
			break
		}
		bytesUsed += b
		n++
	}
	for n > 0 {
		inc, rest = splitTake(evs, n, newest)
		if EstimateTokens(marshal(rangeSection(base, inc))) <= room {
			return inc, rest
		}
		n--
	}
	return nil, evs
}

func splitTake(evs []hostapi.Event, n int, newest bool) (inc, rest []hostapi.Event) {
	if newest {
		return evs[len(evs)-n:], evs[:len(evs)-n]
	}
	return evs[:n], evs[n:]
}

// coldOf is, in tier order, every open event that stays out of the
// context: the ones that did not fit (rest) and the ones a cited range
// already lists; runsExcept then cuts the listed ones out, so each omitted
// run is contiguous among the tier's messages.
func coldOf(open, rest []hostapi.Event, listed map[int64]bool) []hostapi.Event {
	out := make(map[int64]bool, len(rest))
	for _, ev := range rest {
		out[ev.Seq] = true
	}
	var cold []hostapi.Event
	for _, ev := range open {
		if out[ev.Seq] || listed[ev.Seq] {
			cold = append(cold, ev)
		}
	}
	return cold
}

// runsExcept splits evs into the maximal runs of events not in skip. A
// recent or older message that a cited range already lists as omitted is
// not listed a second time under another tier: the manifest names each
// cold event once, and the transition card counts it once.
func runsExcept(evs []hostapi.Event, skip map[int64]bool) [][]hostapi.Event {
	var runs [][]hostapi.Event
	start := -1
	for i, ev := range evs {
		switch {
		case skip[ev.Seq] && start >= 0:
			runs, start = append(runs, evs[start:i]), -1
		case !skip[ev.Seq] && start < 0:
			start = i
		}
	}
	if start >= 0 {
		runs = append(runs, evs[start:])
	}
	return runs
}

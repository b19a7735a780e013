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

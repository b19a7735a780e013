package server

import (
	"sync"

	"go.uber.org/zap"
)

// gateState is where a connection stands with initialize.
type gateState int

const (
	// gateClosed: no initialize has succeeded and none runs. Feature
	// requests are refused (-32002) and feature notifications dropped.
	gateClosed gateState = iota
	// gateOpening: an initialize passed its params check and runs.
	// Feature notifications are held, in order, up to maxHeldNotes.
	gateOpening
	// gateOpen: initialize succeeded; everything is served.
	gateOpen
)

// maxHeldNotes bounds the notifications held while initialize runs; a
// host that floods them before the answer loses the oldest, with a line.
const maxHeldNotes = 1024

// initGate is the connection's initialization state in one place: every
// decision "may this message run yet?" is asked here, and every way an
// initialize ends — success, refusal, failure — goes through finish
// (the dispatcher calls it when the initialize handler returns, whatever
// it returned), which leaves the gate open or closed, never opening.
type initGate struct {
	log *zap.Logger

	mu    sync.Mutex
	state gateState
	held  []heldNote
}

// open reports whether feature methods are served.
func (g *initGate) open() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.state == gateOpen
}

// begin marks an initialize whose params passed their check as running.
// It refuses (false) while another initialize runs; once open it admits
// the call, which then answers "already initialized".
func (g *initGate) begin() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state == gateOpening {
		return false
	}
	if g.state == gateClosed {
		g.state = gateOpening
	}
	return true
}

// notify applies a feature notification now (open), holds it (opening)
// or drops it with a line (closed). apply runs with the gate locked, so
// held and live notifications apply in arrival order.
func (g *initGate) notify(n heldNote, apply func(heldNote)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch g.state {
	case gateOpen:
		apply(n)
	case gateOpening:
		if len(g.held) == maxHeldNotes {
			g.log.Warn("notification held during initialize dropped: too many", zap.String("method", g.held[0].method))
			g.held[0].drop()
			g.held[0] = heldNote{}
			g.held = g.held[1:]
		}
		g.held = append(g.held, n)
	default:
		n.drop()
		g.log.Warn("notification before initialize dropped", zap.String("method", n.method))
	}
}

// finish ends a running initialize: on success the held notifications are
// applied in arrival order and the gate opens; otherwise they are dropped
// and the gate closes, so a later initialize starts from nothing. Calling
// it when no initialize runs changes nothing.
func (g *initGate) finish(ok bool, apply func(heldNote)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state != gateOpening {
		return
	}
	if ok {
		for _, h := range g.held {
			apply(h)
		}
		g.state = gateOpen
	} else {
		for _, h := range g.held {
			h.drop()
		}
		if len(g.held) > 0 {
			g.log.Warn("notifications held during a failed initialize dropped", zap.Int("count", len(g.held)))
		}
		g.state = gateClosed
	}
	g.held = nil
}

package boundary

import (
	"time"

	"github.com/continuity-dev/continuity/hostapi"
)

// Options tunes a Service. The zero value is usable: every unset field takes
// the default named beside it.
type Options struct {
	// PressureRatio is the share of the context window above which a usage
	// event means context pressure. Default 0.8.
	PressureRatio float64
	// ReseedOverhead is the fixed token price of starting over, added to the
	// query to get the reconstruction cost: the successor's lineage block and
	// a system prompt and tool list read again without the warm prompt cache
	// the retained history enjoys. Default 4096, so a session is not reseeded
	// to save less than a typical agent preamble.
	ReseedOverhead int
	// ResidueRatio: stale residue dominates when its tokens exceed
	// ResidueRatio times the kept stable state. Default 1.
	ResidueRatio float64
	// Sessions, when set, lets the service re-read a session it has not seen
	// from the start (after a restart), so the view and the default pin come
	// from the host's exact events rather than from a fragment.
	Sessions hostapi.Sessions
	// Emit, when set, announces every decision as the continuity.boundary
	// remote event; nil for a host that does not forward remote events.
	Emit hostapi.Emitter
	// Now is the clock; tests pin it. Default time.Now.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.PressureRatio <= 0 || o.PressureRatio > 1 {
		o.PressureRatio = 0.8
	}
	if o.ReseedOverhead <= 0 {
		o.ReseedOverhead = 4096
	}
	if o.ResidueRatio <= 0 {
		o.ResidueRatio = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

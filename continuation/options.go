package continuation

import (
	"context"
	"time"

	"github.com/continuity-dev/continuity/hostapi"
)

// Options tunes a Service. The zero value is usable: every unset field takes
// the default named beside it.
type Options struct {
	// TokenBudget is the successor's first-context budget in estimated tokens
	// (see EstimateTokens). Default 24000.
	TokenBudget int
	// RecentEvents is how many user/assistant messages immediately before the
	// initiating message the compiler offers as "recent exchanges". Default 6.
	RecentEvents int
	// ExcerptEvents is how many older messages, before the recent window, it
	// offers as "additional excerpts". Default 6.
	ExcerptEvents int
	// MaxSourceEvents bounds one cited event range; a longer range is refused
	// with CONTINUITY_SOURCE_LIMIT instead of being read whole. Default 2000.
	MaxSourceEvents int
	// RecallMaxEvents bounds one session_recall answer; the rest is reported
	// as truncated with the next event id. Default 200.
	RecallMaxEvents int
	// RateWindow, MaxPerSession and MaxChain bound pathological chains: at
	// most MaxPerSession successors of one predecessor and at most MaxChain
	// edges along one ancestry may be created within RateWindow.
	// Defaults 10 minutes, 3 and 6.
	RateWindow    time.Duration
	MaxPerSession int
	MaxChain      int
	// Now is the clock; tests pin it. Default time.Now.
	Now func() time.Time
	// Inherit, when set, runs once a successor is committed (and again on
	// a replay, which writes nothing new): it gives the successor the
	// predecessor's effective Session policy as its own row. It reports
	// its own failures; the continuation stands either way.
	Inherit func(ctx context.Context, predecessorID, successorID string)
	// Runs, when set (the host declared capabilities.runs), starts each
	// new successor's first run; nil keeps the person's next message as
	// what starts it.
	Runs hostapi.Runs
	// Sources, when set (the host declared capabilities.sources), opens
	// cited resource and memory sources (continuity/openSource); nil
	// answers them unavailable with the reason.
	Sources hostapi.Sources
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.TokenBudget, 24000)
	def(&o.RecentEvents, 6)
	def(&o.ExcerptEvents, 6)
	def(&o.MaxSourceEvents, 2000)
	def(&o.RecallMaxEvents, 200)
	def(&o.MaxPerSession, 3)
	def(&o.MaxChain, 6)
	if o.RateWindow <= 0 {
		o.RateWindow = 10 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

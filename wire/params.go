package wire

import (
	"sync/atomic"

	"github.com/continuity-dev/continuity/jsonscan"
)

// Params are the bytes of one value cut from a host frame — a request's
// params, or a large result of one of our calls — together with the claim
// on the frame buffer they sit in. Whoever holds a *Params owns the bytes
// until it calls Release (the buffer may then carry a later frame) or Keep
// (the bytes become ordinary garbage-collected memory). Until then they
// count toward the bytes in flight that pause reading (see budget).
//
// Misuse fails where it happens: Bytes after Release panics, and in the
// race build and wire's own tests a released buffer is overwritten at once
// (poisonReleased), so a slice kept past Release reads garbage instead of,
// much later, an unrelated frame. A nil
// *Params is "no params": Bytes is nil and Release and Keep do nothing.
type Params struct {
	b    []byte
	fr   frame
	s    *Stream
	held int64 // bytes counted in flight
	long jsonscan.Spans
	// members are b's top-level members when the read loop found them
	// while validating the frame (nil otherwise; see Members).
	members []jsonscan.Member
	state   atomic.Int32
	before  []func()
}

// States of a Params.
const (
	owned int32 = iota
	released
	kept
)

// Bytes returns the host's original bytes. It panics once the Params are
// released: the buffer may already hold another frame.
func (p *Params) Bytes() []byte {
	if p == nil {
		return nil
	}
	if p.state.Load() == released {
		panic("wire: params used after Release")
	}
	return p.b
}

// Long returns the long strings of the frame the bytes were cut from,
// when it was validated while it arrived: a trusted jsonscan.Scanner over
// Bytes (or a part of them) given them steps over each in O(1). They are
// bound to the frame's bytes and share their lifetime: like Bytes, they
// must not be used after Release.
func (p *Params) Long() jsonscan.Spans {
	if p == nil || p.state.Load() == released {
		return jsonscan.Spans{}
	}
	return p.long
}

// Members returns the top-level members of the bytes (offsets in Bytes),
// when they are an object and the read loop found its members while it
// validated the frame as it arrived: a handler need not walk all of a
// 64 MiB payload again to find the members around it. ok is false
// otherwise (a small frame, or bytes that are not an object): scan them.
// Like Bytes, they must not be used after Release.
func (p *Params) Members() (ms []jsonscan.Member, ok bool) {
	if p == nil || p.members == nil || p.state.Load() == released {
		return nil, false
	}
	return p.members, true
}

// Follower returns the work that followed the frame while it arrived
// (Config.Follow), nil when none did. It is the frame's: it is closed when
// the Params are released or kept, and is used only until then.
func (p *Params) Follower() Follower {
	if p == nil || p.state.Load() != owned {
		return nil
	}
	return p.fr.follow
}

// BeforeRelease registers f to run when the owner releases the bytes,
// before the buffer can be reused: a result that still borrows slices of
// the params (a retry record) takes its own copy there. Only the owner
// calls it, on the goroutine that will release.
func (p *Params) BeforeRelease(f func()) {
	if p != nil {
		p.before = append(p.before, f)
	}
}

// Release ends ownership: the bytes stop counting in flight and a pool
// buffer goes back for the next large frame. Only the first Release or
// Keep has an effect.
func (p *Params) Release() {
	if p == nil || !p.state.CompareAndSwap(owned, released) {
		return
	}
	for _, f := range p.before {
		f()
	}
	p.before = nil
	p.long.Retire()
	endFollow(p.fr.follow) // before the buffer is poisoned or reused
	p.fr.follow = nil
	if p.fr.pooled != nil {
		if poisonReleased != nil {
			poisonReleased(p.fr.pooled)
		}
		p.s.frames.recycle(p.fr)
	}
	p.s.budget.give(p.held)
}

// Keep ends the claim without reusing the buffer: the holder may keep the
// bytes (or strings viewing them) as long as it likes, and they stop
// counting in flight.
func (p *Params) Keep() {
	if p == nil || !p.state.CompareAndSwap(owned, kept) {
		return
	}
	for _, f := range p.before {
		f()
	}
	p.before = nil
	endFollow(p.fr.follow)
	p.fr.follow = nil
	p.s.budget.give(p.held)
}

// poisonReleased, when set, overwrites a pool buffer as it is released so
// that a slice kept past Release reads as garbage at once. It is debug
// only, and the product binary has none of it: the race build sets it
// (poison_race.go), which CI's `go test -race ./...` uses for every test
// and for the e2e binaries internal/testbin builds with -race; without
// the race tag, wire's own tests set it (poison_norace_test.go).
var poisonReleased func([]byte)

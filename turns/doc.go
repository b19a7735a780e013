// Package turns ties the payload filter and the Session policy to the host's
// turn lifecycle (docs/design.md §2.2–§2.5): which requests take part, when
// filtering is revoked, how compaction brackets are covered, exact retries,
// and the composer notices that tell the user what happened.
//
// State is in memory and per process, on purpose: a baseline is bound to the
// exact turn that produced it, so after a restart a turn that is already
// running cannot be filtered (TURN_BOUNDARY_UNAVAILABLE) and a compaction
// bracket that was not seen is "unknown" — never guessed.
//
// Notification handlers (Observe, Dispose, Cancelled, Response) run in the
// wire's read loop: they only change memory and queue notices; anything that
// calls the host (policy resolution, agent lookup) runs in request handlers
// (Admit, Payload, AccountSwitch), which re-check what a notification may have
// changed while they waited before they commit anything.
//
// Locks: Manager.mu guards every session, bracket and binding; an admission's
// own mu guards its revocation and counts and may be taken while Manager.mu is
// held, never the other way round. session.admitMu serializes admissions of
// one session and is taken before Manager.mu.
package turns

// Package continuation owns session continuation (docs/design.md §3):
// the typed predecessor → successor edge, the projection manifest that
// records exactly what seeded a successor, the agent-authored handoff, the
// transferred structured state, and the exact source events the manifest
// selected. It also owns the projection compiler that builds a successor's
// first context, the four continuation tools (continue_session,
// session_recall, session_lineage, projection_manifest) and the typed
// methods behind the continuity Remotes lineage, handoff, manifest and
// projection (Lineage, Handoff, Manifest, Projection), which the plugin's
// method table calls with arguments it has checked.
//
// Everything durable lives in continuity's SQLite store (component
// "continuation"). Continuation edges are distinct from the host's
// parent/child delegation and from forks: a predecessor may have several
// successors, a successor has exactly one predecessor, and cycles are
// refused. History is never rewritten: a wrong handoff is corrected by a new
// edge from the same predecessor (continue_session's optional corrects), a
// successor whose run failed keeps its edge, and nothing here deletes one.
//
// The host's session events are the source of truth for what happened in a
// predecessor. The package reads them through hostapi.Sessions when it needs
// them instead of tracking forwarded events, so it behaves the same after a
// restart and needs no Observe hook. From those events it reads: the
// initiating message (the last user/message that is not a compaction
// checkpoint; its data.text, a string data.content, or the one text block
// of DSH's content array, copied as the host's raw JSON token), recent messages (user/assistant), the turn
// (turn/start data.turn), unsettled effects (run/start without run/end;
// tool/call or assistant/message data.toolCalls[] without tool/result) and
// the plan (the latest plan/update), the model the session last used and
// its latest session/title.
//
// A continuation ends the turn that made it: one continuation per turn,
// later steps and tools of that turn refused (CONTINUITY_TURN_ENDED), and
// each carried pending run owned by exactly one successor. The successor's
// context is a structured projection plus a host-ready form (system text
// and the exact first user message) in which the runtime's lineage block
// is the only one: look-alikes in model-written text are refused and in
// cited sources neutralised (forgery.go).
package continuation

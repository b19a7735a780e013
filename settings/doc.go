// Package settings owns the persisted visible-history continuation policy
// (docs/design.md §2.1): the two keys of the host's "github-copilot" settings
// namespace that continuity writes, their strict shapes and bounds, how a
// session's policy is resolved from them, and the embedded settings store
// that stands in for the host's when the host has none.
//
// Only the keys sessionContinuation and continuationDefaultHistory are ever
// written, each with one "set" operation under the namespace revision the
// write was computed from, and every write is read back. Nothing secret —
// no ciphertext, fingerprints, account ids or session content — is stored.
// Stored data that does not parse strictly is reported as
// COPILOT_CONTINUATION_SETTINGS_INVALID and is never overwritten.
package settings

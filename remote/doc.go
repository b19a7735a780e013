// Package remote serves the Remote namespaces continuity answers through
// remote/invoke (docs/protocol.md §5): the visible-history policy
// (HistoryPolicy, namespace githubCopilotSessionContinuation) and
// continuity's own features (Continuity, namespace continuity). Each
// namespace is a plain type whose Invoke(ctx, method, args) returns a DSH
// result Envelope; the wire layer only routes the namespace to it.
// Arguments are checked against the namespace's ui-contract schemas before
// any method runs.
package remote

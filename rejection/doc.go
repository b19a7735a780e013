// Package rejection owns the replay-rejection detector: it decides whether a
// supplier error answered to a payload the plugin saw (llm/response {status,
// errorBody}) is a rejection of replayed encrypted reasoning, and of which
// kind.
//
// The detector exists so that the composer offers "Enable visible-history
// continuation" only after an exact replay-scope rejection and never after an
// unrelated failure (rate limits, context overflow, bad credentials, outages).
// Suppliers wrap the same text in many envelopes — OpenAI JSON, GitHub
// Copilot's bad_request / invalid_request_body / empty-code / websocket_error
// variants at 400 or 401, gateway plain text, LiteLLM's exception strings
// with escaped JSON inside — and hosts cut bodies at 8 KiB, often mid-JSON.
// Classify therefore never parses JSON: it unescapes the text a bounded
// number of times and matches phrases, each anchored to a second phrase so
// that a lookalike sentence from another domain does not match.
//
// A Verdict carries a kind and at most one well-formed item id (rs_12,
// fc_3, cmp_…); never ciphertext or message text, so it may be logged,
// stored and sent to clients.
package rejection

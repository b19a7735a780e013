// Package proxy owns `continuity proxy`: a local reverse proxy in front of an
// OpenAI Responses supplier that gives visible-history continuation to
// clients that cannot load a plugin (Codex CLI, opencode, any Responses
// client), by filtering what they send rather than changing them.
//
// A POST to …/responses or …/responses/compact with a session key (the
// body's prompt_cache_key, else the session of Codex's turn metadata, else
// a session header; see placeKeys) is read whole — while the filter follows
// it in, when it is plain and of declared length (readRequest), else
// decompressed when it is gzip, zstd or deflate (Codex sends zstd signed in
// with ChatGPT; see payload) — filtered by the plugin's filter when the
// session's policy is on, and forwarded, from 1 MiB while the filter
// finishes (pipeline); the upstream's answer streams back as it arrives while
// a tap reads the response.output_item.done events (or the JSON output) to
// record which account issued each reasoning and compaction item, as
// fingerprints and account digests only. Those records, and the accounts
// each session was seen with, are kept in memory and in the data
// directory's continuity.db (the ledger), bounded, so a restart or a
// second proxy on the same directory decides the same way. Everything else — other paths,
// other methods, requests without a session key — passes through untouched;
// so, byte for byte, does a side request (requestKeys.side).
//
// Policy lives in the embedded settings store (package settings), the same
// rows and compare-and-swap writes as the plugin's. Two omission rules:
// RuleProvenance (the default) keeps only the items recorded as issued to
// the request's issuer — its upstream and account, so several named
// upstreams (Config.Upstreams, each under /NAME/) are boundaries too — and
// omits the rest, those of unknown issuer included; RuleTurn is the
// plugin's rule (a turn omits the encrypted reasoning present at its
// first request).
//
// The proxy never retries or re-sends. A replay rejection answered while a
// session's policy is off passes through and is recorded; the sentence
// naming the command and page that turn the policy on is appended to its
// message (every other byte kept), as clients show only the message, and
// sent as an X-Continuity-Hint header and a log line too.
//
// Gemini's generateContent and streamGenerateContent calls are filtered
// too (gemini.go): the session is derived from the conversation's first
// user content, the issuer is the (upstream, API key) pair, the body is
// scanned while it arrives (readGemini, gemini.Follow) and, from 1 MiB,
// forwarded while it arrives, its earlier turns first (geminiPipeline,
// through the same pipeline), and package
// filter/gemini removes the thought signatures not issued to it by
// Gemini's rules; the same policy store, ledger and page serve both, and
// one body reader (bodyTap) serves both taps.
//
// What a stranger's client sends is bounded (limits.go, budget.go,
// decode.go, sessionid.go): the bodies held at once share a budget, a
// compressed body is decoded into one buffer of its size or refused before
// it is decoded, a body must arrive at a minimum rate, idle connections
// close, a chunked request's connection closes after its answer, and a
// session key the settings store could not hold is used through a
// fixed-length digest.
//
// A failure the proxy answers itself is a value: each step returns an
// *Error carrying status, code (diag's proxy codes, registered with the
// plugin's) and message (errors.go, failures.go), and one writer,
// answerError, logs and answers it, so no step writes its own answer.
//
// The status page on / lists the sessions seen, earlier runs' from the
// ledger; its API under /continuity/ needs the page secret kept in the
// data directory (given to the page in the URL fragment, never sent in a
// URL) and a same-origin request, so no other web page can read or flip a
// policy. The API is routed by an http.ServeMux with method patterns
// (api.go) behind the guard (guard.go).
package proxy

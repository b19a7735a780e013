// Package bench owns continuity's performance comparison (issue 7,
// docs/design.md §6): the measurement library behind `continuity bench`.
//
// Users choose between an in-process plugin (the DSH Copilot plugin keeps
// request bodies as JavaScript objects and hashes each ciphertext), a
// gateway that parses and re-serializes every request, and continuity,
// which runs out of process. continuity has to earn that process boundary
// in speed, so one run measures, on the same generated payloads
// (filter/payloadgen, docs/suppliers.md §1):
//
//   - the filter alone (MB/s, allocations, ns per item), validating and
//     prevalidated as the plugin runs it;
//   - the full llm/payload round trip through the real binary over a pipe,
//     spoken to by a lean NDJSON client (Client), next to the same frame
//     bytes through /bin/cat;
//   - the limits: single-core SHA-256 over the ciphertexts and a memmove of
//     the payload;
//   - an encoding/json decode-filter-encode (JSONTurn, what a naive Go
//     gateway does);
//   - the reference algorithm in Node.js (node/reference.js), end to end and
//     the filter step alone on an already-parsed object, when node exists;
//   - how cost grows with payload size, with the number of reasoning items
//     and over the turns of a long session;
//   - the event stream: 1 MiB payloads in a DSH-shaped session (format 4,
//     session.event) whose steps end in 17 MiB tool/result events, against
//     steps whose results are one line (events.go);
//   - `continuity proxy` next to a plain httputil.ReverseProxy of the same
//     requests: added time to first byte against the filter's own time,
//     allocation per body byte, and SSE throughput (proxy.go).
//
// Run returns a Report whose Bars are the docs/design.md §6 bars computed from
// ratios measured in the same run; WriteText, WriteMarkdown and WriteJSON
// render it. Timing lives only here and in benchmarks: no test asserts on
// a duration.
package bench

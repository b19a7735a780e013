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
// ratios measured in the same run; Repeat runs it N times and Series makes
// one report of the runs, each bar passing only when every run passed it
// and carrying its worst run (Aggregate: the highest time or allocation,
// the lowest throughput ratio, or for a limit that is the run's own filter
// time, the least room to it; a failing run is always the worst).
// WriteText, WriteMarkdown and WriteJSON render either. Timing lives only
// here and in benchmarks: no test asserts on a duration.
//
// # How samples are taken
//
// All cases of one payload of the size table — the filter validating and
// prevalidated, SHA-256, memmove, encoding/json, the wire round trip and
// the pipe copy — are measured together (interleave): each is warmed up
// (the wire ten times at 1 MiB, so the plugin's buffers and collector
// settle), then they are sampled in turns, one sample of each per round,
// so both sides of every ratio see the same minutes of the machine. Between
// in-process samples the heap is collected once 2 MiB of garbage has piled
// up, so no sample pays for another's garbage (and small samples do not
// all start with cold caches); while the plugin or cat is timed, this
// process's collector is off, so it cannot take one of the two cores from
// them.
//
// # How each bar is measured
//
//   - filter vs SHA-256 (64 MiB, 4,096 reasoning items): throughput of the
//     validating filter at its best sample over single-core SHA-256 of the
//     same ciphertexts at its best, sampled in turns. Best, because noise
//     only adds time, and both sides are estimated alike.
//   - filter allocations: bytes allocated per payload byte, averaged over
//     every sample.
//   - filter vs encoding/json (64 MiB ordinary): best against best, in turns.
//   - wire round trip vs filter alone (64 MiB, each kind): the best round
//     trip's time over the validating filter's best time on the same
//     payload, sampled in turns. Beside it (Linux), the CPU time per round
//     trip of the plugin and of this process, and the filter's own: with
//     every core busy, a round trip takes about their sum over the cores
//     or more (the untimed turn events are in the sum), which shows when the bar is bound by the machine rather
//     than by waiting.
//   - wire p99 (1 MiB, each kind): nearest-rank p99 of at least
//     Config.LatencySamples round trips (1000 in a full run: the 10th
//     slowest; 500 in --quick), every one a turn's first payload. Noise is
//     kept: this is the latency a host sees on this machine.
//   - payload p99 behind 17 MiB tool/results: nearest-rank p99 over
//     Config.EventSteps payloads (200: the second slowest) that each follow
//     a 17 MiB tool/result, with the same number after one-line results as
//     the baseline beside it.
//   - agent/request right after a 17 MiB tool/result: p50 over the same
//     steps of the agent/request sent right behind the result (it is
//     answered only once the result has been applied); nothing is inserted
//     between the result and the request.
//   - proxy rows (proxy.go, proxyconcurrent.go): the plain ReverseProxy
//     and continuity proxy alternately on the same bodies; medians of time
//     to first byte against the median of the filter's own time, p99 for
//     sessions at once, best stream time for SSE throughput: a long
//     answer of output_text.delta events (Config.ProxyStreamBytes) to a
//     POST on /v1/responses, asked for by a header rather than a path, so
//     continuity's copy is filtered and passes its response tap, as a
//     Codex or opencode stream does.
package bench

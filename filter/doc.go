// Package filter owns the outgoing OpenAI Responses payload filter of
// visible-history continuation (docs/design.md §2.3).
//
// A Turn fingerprints, on its first successful payload, every top-level
// `type: "reasoning"` input item by SHA-256 over its encrypted_content; that
// set is the turn's baseline. Every payload of the turn then omits the items
// in the baseline, summaries included, and keeps reasoning generated during
// the turn. Optionally the `id` member of the item that directly followed an
// omitted reasoning item is removed, because suppliers reject fc_/msg_ ids
// whose paired reasoning is gone.
//
// The filter is byte-faithful: the output is the input with exactly the
// omitted byte ranges cut out. Ordinary content (messages, tool calls and
// outputs, images, instructions, tools) is skipped over by a validating
// scanner and never decoded or re-encoded. Work is bounded per call (65,536
// top-level items, 4,096 reasoning items, 64 Mi UTF-16 code units hashed) and
// hashing runs in 64 Ki-unit chunks that poll cancellation and revocation, so
// a cancelled or revoked call stops within one chunk and leaves no baseline.
//
// A call uses the second core where that pays (scan_hashed.go): from
// 512 KiB the fingerprinting runs beside the validating scan (from 4 MiB
// beside a trusted one), item by item behind it, and the scanning goroutine
// joins it once the scan is done,
// so validation costs little more than the hashing it overlaps; the SHA-256
// of the final bytes (the final sum) runs on its own goroutine from
// 128 KiB. A failed scan is the call's error whatever the hashing met, and
// every goroutine a call starts has ended when it returns.
//
// Select and Turn.Apply filter a payload that is already whole. A Stream
// (Follow, Start) filters by Select's decisions while overlapping the work
// with its caller's I/O: its scan can follow a payload still being read
// into its buffer, redoing a step that fails before the bytes it needs have
// arrived; the fingerprinting follows the scan before the caller decides;
// the scan's Shape (top-level members, each item's type and role) lets the
// caller place the request without a second walk; and Send emits the final
// bytes as they become final, never the bytes after the last input item
// before the whole payload is validated.
//
// The package also owns Retained, the short-lived store of the final bytes of
// filtered requests that lets an exact retry send the same bytes again.
package filter

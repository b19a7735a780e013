// Package jsonscan finds where JSON values begin and end without decoding
// them, for continuity's large payloads: the wire validates each frame once
// and locates its params, and the filter indexes a Responses payload's input
// items, both with the same scanner.
//
// It exists because general JSON libraries either decode (encoding/json) or
// walk strings byte by byte (gjson); a base64 ciphertext of tens of KiB or
// a 17 MiB tool output should be skipped at memory speed. In validating mode
// the Scanner checks RFC 8259 and UTF-8 in the same single pass; in trusted
// mode (a document validated earlier) it only finds value ends. The
// Validator is the validating scan made resumable: fed a document read by
// read as it arrives, it reaches the same verdict as Members on the whole.
// It also records where the document's long strings are (Spans), so that
// the trusted scans of the handlers step over a 17 MiB tool output in O(1)
// instead of searching it once per reader.
package jsonscan

// Package dshevent reads the members of DeepSeek Harness session events
// that continuity's features need, in both DSH session formats (0: DSH
// 0.1.x; 4: DSH 0.1.7 and the 0.2.x line; docs/protocol.md §4.3).
//
// Every reader takes an event's data (or surfaceOp) as the host's bytes
// and looks members up with gjson: nothing is decoded beyond the member
// asked for, so a feature that needs one member of a 17 MiB tool/result
// pays one scan, not a decode. ReadToolResult and Object go further for
// the read loop: they locate members with the project's JSON scanner and
// never copy the output they skip. A reader never fails the whole event: it
// answers ok=false (or a zero value) and, where a caller must log why, a
// Problem naming the member.
//
// Hosts that are not DSH may send simpler shapes (a message's data.text,
// a tool/result's top-level callId and isError); the readers accept those
// too, after DSH's own.
package dshevent

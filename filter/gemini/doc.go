// Package gemini owns the payload filter of Gemini's generateContent and
// streamGenerateContent requests: it removes the thought signatures a
// request replays that were not issued to the (upstream, account) the
// request is sent with, by Gemini's rules rather than the Responses rules
// of package filter.
//
// Gemini's thinking models put an opaque thoughtSignature on content parts
// (text, functionCall, thought parts); the client must send it back, and a
// signature is bound to where it was minted: another account's or another
// upstream's answers 400 "Corrupted thought signature.". Gemini 3 also
// requires a signature on the first functionCall part of each step of the
// current turn, where the current turn starts at the last user content with
// text and no function response ("Function call is missing a
// thought_signature"). So, for each signature the caller's decision does not
// keep:
//   - of an earlier turn: the thoughtSignature member is removed and the part
//     (its text, its function call) stays;
//   - on a thought part (thought: true): the part is dropped whole, as the
//     thinking it carries means nothing without it;
//   - on a functionCall part of the current turn: the value is replaced by
//     Sentinel, the value Google documents (and gemini-cli itself sends) for
//     a call without a valid signature of its own, never a guessed one;
//   - on any other part of the current turn: the member is removed.
//
// A content left without parts is dropped whole (Gemini refuses empty
// parts). Signatures equal to Sentinel are no one's and stay as sent.
//
// The filter is byte-faithful: the output is the input with exactly those
// members, parts and contents cut out (with the comma that separated each)
// and those values replaced. Everything else is skipped by a validating
// scanner and never decoded. Work is bounded per payload (MaxContents,
// MaxParts, MaxSignatures, MaxSignatureBytes), with named diagnostics as for
// Responses payloads.
//
// Follow scans a payload while it is read; its Send filters it as it is
// scanned and emits the bytes whose fate is settled — the contents before
// the last user message indexed so far are of earlier turns whatever
// follows — so that a proxy can forward them while the rest arrives.
//
// Key derives a conversation key from the first user content, which
// gemini-cli persists and replays unchanged (it sends no session id with an
// API key); Issued reads the signatures a response issues, for the caller's
// ledger.
package gemini

package filter

import (
	"errors"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/jsonscan"
)

// scanner is the JSON scanner with the filter's indexing of Responses
// payloads on top (scan.go, classify.go).
type scanner struct {
	jsonscan.Scanner
	front *frontier // may be nil
	prog  *progress // may be nil: a Stream's readers of the scan
	// arrive, for a scan that follows a payload being read (followScan),
	// says how much of whole has arrived; B is then whole's arrived part.
	arrive *arrival
	whole  []byte
	// compaction makes compaction items with encrypted_content candidates
	// for omission (kindCompaction); the plugin's Turn never omits them.
	compaction bool
}

// syntaxError names a byte where the payload stops being JSON.
func syntaxError(off int) error {
	return diag.Newf(diag.InvalidPayload, "payload is not valid JSON (byte %d)", off).With("offset", off)
}

// named turns the scanner's syntax errors into INVALID_PAYLOAD and passes
// every other (already named) error through.
func named(err error) error {
	var se *jsonscan.SyntaxError
	if errors.As(err, &se) {
		return syntaxError(se.Offset)
	}
	return err
}

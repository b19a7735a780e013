package proxy

import (
	"io"
	"net/http"

	"github.com/continuity-dev/continuity/filter/gemini"
)

// readGemini reads a Gemini request body and scans it. A plain body of a
// declared length is read into one buffer of that length while
// gemini.Follow scans it, so that by the time the last byte is in only
// the signatures' decisions are left; any other body is read whole
// (readBody), decoded, then scanned. sent is the body as it came, doc
// nil with scanErr the scan's refusal. Every buffer is charged to h
// before it is filled.
func readGemini(w http.ResponseWriter, r *http.Request, enc string, h *holding) (pay payload, doc *gemini.Doc, scanErr, err error) {
	if n := r.ContentLength; codingOf(enc) != "" || n <= 0 || n > maxRequestBytes {
		sent, err := readBody(w, r, h)
		if err != nil {
			return payload{}, nil, nil, readError{err}
		}
		if pay, err = openPayload(sent, enc, maxDecodedBytes, h); err != nil {
			return payload{}, nil, nil, err
		}
		doc, scanErr = gemini.Scan(pay.plain)
		return pay, doc, scanErr, nil
	}
	if err := h.take(r.ContentLength); err != nil {
		return payload{}, nil, nil, readError{err}
	}
	body := make([]byte, r.ContentLength)
	f := gemini.Follow(body)
	defer f.Stop() // the scan stops reading body before it is returned
	rd := http.MaxBytesReader(w, r.Body, maxRequestBytes)
	for n := 0; n < len(body); {
		m, err := rd.Read(body[n:])
		n += m
		f.Arrived(n)
		switch {
		case err == io.EOF && n < len(body):
			return payload{}, nil, nil, readError{io.ErrUnexpectedEOF}
		case err != nil && err != io.EOF:
			return payload{}, nil, nil, readError{err}
		}
	}
	doc, scanErr = f.Doc()
	return payload{plain: body, sent: body}, doc, scanErr, nil
}

// readError marks an error of readGemini as the read's (answered by
// readFailed), not the decoding's (openFailed).
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

package proxy

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/continuity-dev/continuity/filter"
)

// readRequest reads the request body. A plain body of a declared length is
// read into one buffer of that length while the filter follows it
// (filter.Follow): by the time the last byte is in, the body is validated,
// its items indexed and its ciphertexts largely fingerprinted, so placing
// and filtering it cost little after the read. Another plain body is read
// whole (readBody) and then given to a Stream; st is nil for a compressed
// body, which is decoded first. A non-nil st must be closed. Every buffer
// is charged to h before it is filled; that of a plain body of a declared
// length is buf's (bodyLease.bytes).
func readRequest(w http.ResponseWriter, r *http.Request, enc string, h *holding, buf *bodyLease) (body []byte, st *filter.Stream, err error) {
	opts := filter.Options{StripPairedIDs: true}
	if codingOf(enc) != "" {
		body, err = readBody(w, r, h)
		return body, nil, err
	}
	if n := r.ContentLength; n <= 0 || n > maxRequestBytes {
		if body, err = readBody(w, r, h); err != nil {
			return nil, nil, err
		}
		return body, filter.Start(r.Context(), body, opts), nil
	}
	if err := h.take(r.ContentLength); err != nil {
		return nil, nil, err
	}
	body = buf.bytes(int(r.ContentLength))
	st = filter.Follow(r.Context(), body, opts)
	rd := http.MaxBytesReader(w, r.Body, maxRequestBytes)
	for n := 0; n < len(body); {
		m, err := rd.Read(body[n:])
		n += m
		st.Arrived(n)
		switch {
		case err == io.EOF && n < len(body):
			return nil, st, io.ErrUnexpectedEOF
		case err != nil && err != io.EOF:
			return nil, st, err
		}
	}
	return body, st, nil
}

// closeStream ends st, if any, when its work will not be sent: its
// goroutines stop before the request goes on.
func closeStream(st *filter.Stream) {
	if st != nil {
		st.Close()
	}
}

// keysOf places a request from its headers and body: from the filter's
// own scan when st followed the body and found it valid, else by
// scanBody. invalid is then the filter's verdict on the body, which a
// request that is to be filtered is answered with.
func keysOf(h http.Header, body []byte, st *filter.Stream) (k requestKeys, invalid, err error) {
	if st != nil {
		sh, serr := st.Shape()
		if serr == nil {
			return placeKeys(h, shapeKeys(sh)), nil, nil
		}
		invalid = serr
	}
	k, err = readKeys(h, body)
	return k, invalid, err
}

// followed filters the body of size bytes that st has scanned by the
// provenance rule and forwards it: from pipelineFrom bytes while it is
// being filtered, else once it is, with a Content-Length. invalid is the
// filter's verdict on the body, buf the lease on its buffer. It returns
// the Error of a body the filter did not let out, nothing sent.
func (p *Proxy) followed(w http.ResponseWriter, r *http.Request, st *filter.Stream, size int, invalid error, fl *flight, buf *bodyLease) error {
	if invalid != nil {
		return notFiltered(fl, invalid)
	}
	if size >= pipelineFrom {
		var om filter.Omitted
		p.pipeline(w, r, fl, p.filtered, buf, func(emit func([][]byte) error) (err error) {
			om, err = p.sendFollowed(r.Context(), st, fl, func(b []byte) error { return emit([][]byte{b}) })
			return err
		})
		p.sent(fl, om)
		return nil
	}
	var pieces [][]byte
	om, err := p.sendFollowed(r.Context(), st, fl, func(b []byte) error {
		pieces = append(pieces, b)
		return nil
	})
	if err != nil {
		return notFiltered(fl, err)
	}
	p.sent(fl, om)
	p.forward(w, r, pieces, fl)
	return nil
}

// sendFollowed filters a followed body by the provenance rule, emitting
// the final bytes as they become final. A ledger failure in a decision
// stops the emitting before the next piece and is returned.
func (p *Proxy) sendFollowed(ctx context.Context, st *filter.Stream, fl *flight, emit func([]byte) error) (filter.Omitted, error) {
	// Stored by the decisions, on the filter's hashing goroutines.
	var failed atomic.Pointer[error]
	res, err := st.Send(p.provenance(ctx, fl, &failed), func(b []byte) error {
		if e := failed.Load(); e != nil {
			return *e
		}
		return emit(b)
	})
	if e := failed.Load(); err == nil && e != nil {
		err = *e
	}
	return res.Omitted, err
}

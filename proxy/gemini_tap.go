package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/filter/gemini"
)

// forwardGemini sends pieces as a Gemini request's body; fl is nil for a
// request passed through untouched.
func (p *Proxy) forwardGemini(w http.ResponseWriter, r *http.Request, up geminiUpstream, pieces [][]byte, fl *flight) {
	out := r.Clone(r.Context())
	n := 0
	readers := make([]io.Reader, len(pieces))
	for i, b := range pieces {
		n += len(b)
		readers[i] = bytes.NewReader(b)
	}
	out.Body = io.NopCloser(io.MultiReader(readers...))
	out.ContentLength = int64(n)
	out.Header.Set("Content-Length", strconv.Itoa(n))
	out.GetBody = nil
	if fl == nil {
		up.plain.ServeHTTP(w, out)
		return
	}
	up.rp.ServeHTTP(w, withFlight(out, fl))
}

// modifyGeminiResponse classifies an upstream error of a Gemini request
// (a replay rejection is recorded and, while the policy is off, hinted)
// and puts the signature tap on an answer.
func (p *Proxy) modifyGeminiResponse(resp *http.Response) error {
	fl, _ := resp.Request.Context().Value(flightKey{}).(*flight)
	if fl == nil {
		return nil
	}
	if resp.StatusCode >= 400 {
		if fl.placed != nil {
			// Answered before the end of a body still being sent: its
			// turn is known once the filter has placed it.
			select {
			case <-fl.placed:
			case <-resp.Request.Context().Done():
				return nil
			}
		}
		return p.upstreamError(resp, fl)
	}
	ctx := context.WithoutCancel(resp.Request.Context())
	stream := bytes.HasPrefix([]byte(resp.Header.Get("Content-Type")), []byte("text/event-stream"))
	resp.Body = newGeminiTap(resp.Body, stream, func(fp [32]byte) { p.issuers.record(fp, fl.account) },
		func(fps [][32]byte) {
			if err := p.issuers.persist(ctx, fps, fl.account); err != nil {
				p.cfg.Log.Warn("issued thought signatures not recorded in the ledger", zap.String("session", fl.session), zapErr(err))
			}
		})
	return nil
}

// newGeminiTap is the tap on a Gemini answer: it passes the body through
// unchanged (bodyTap) and records the fingerprint of each thought
// signature it issues, with record as each goes by and persist, once, for
// all of them when the body is closed: from each server-sent event (Gemini
// sends single "data: {json}" lines, the last one perhaps without a blank
// line after it) or, for JSON, from the body at its end. Past the bounds
// signatures go unrecorded (and are then of unknown issuer, so removed
// when replayed).
func newGeminiTap(body io.ReadCloser, stream bool, record func(fp [32]byte), persist func(fps [][32]byte)) *bodyTap {
	var issued [][32]byte
	return &bodyTap{body: body, stream: stream, endsAtEOF: true,
		event: func(data []byte) {
			gemini.Issued(data, func(fp [32]byte) {
				record(fp)
				issued = append(issued, fp)
			})
		},
		closed: func() {
			if len(issued) > 0 {
				persist(issued)
				issued = nil
			}
		}}
}

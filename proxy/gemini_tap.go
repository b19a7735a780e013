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
		return p.upstreamError(resp, fl)
	}
	ctx := context.WithoutCancel(resp.Request.Context())
	stream := bytes.HasPrefix([]byte(resp.Header.Get("Content-Type")), []byte("text/event-stream"))
	resp.Body = &geminiTap{body: resp.Body, stream: stream,
		record: func(fp [32]byte) { p.issuers.record(fp, fl.account) },
		persist: func(fps [][32]byte) {
			if err := p.issuers.persist(ctx, fps, fl.account); err != nil {
				p.cfg.Log.Warn("issued thought signatures not recorded in the ledger", zap.String("session", fl.session), zapErr(err))
			}
		}}
	return nil
}

// geminiTap passes a Gemini answer through unchanged and records, as the
// bytes go by, the fingerprint of each thought signature it issues: from
// each server-sent event (Gemini sends single "data: {json}" lines) or,
// for JSON, from the body at its end. It holds at most one event, or the
// JSON body up to maxJSONBytes; past the bounds signatures go unrecorded
// (and are then of unknown issuer, so removed when replayed).
type geminiTap struct {
	body    io.ReadCloser
	stream  bool
	record  func(fp [32]byte)
	persist func(fps [][32]byte)
	issued  [][32]byte

	line   []byte // the current line of a stream
	data   []byte // the current event's data lines, joined by newlines
	tooBig bool
	lines  lineFraming
}

// Read implements io.Reader: the bytes are the upstream's, as they arrive.
func (t *geminiTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if n > 0 {
		if t.stream {
			t.scan(p[:n])
		} else if !t.tooBig {
			if len(t.data)+n > maxJSONBytes {
				t.tooBig, t.data = true, nil
			} else {
				t.data = append(t.data, p[:n]...)
			}
		}
	}
	if err == io.EOF {
		if t.stream {
			t.endLine()
			t.endLine() // an event the stream did not end with a blank line
		} else if !t.tooBig {
			t.event(t.data)
		}
		t.data = nil
	}
	return n, err
}

// Close persists what the answer issued and closes the upstream body.
func (t *geminiTap) Close() error {
	if len(t.issued) > 0 {
		t.persist(t.issued)
		t.issued = nil
	}
	return t.body.Close()
}

func (t *geminiTap) event(data []byte) {
	gemini.Issued(data, func(fp [32]byte) {
		t.record(fp)
		t.issued = append(t.issued, fp)
	})
}

// scan feeds stream bytes through server-sent events' line framing (a
// blank line ends an event).
func (t *geminiTap) scan(b []byte) { t.lines.feed(b, t.appendLine, t.endLine) }

func (t *geminiTap) appendLine(b []byte) {
	if t.tooBig {
		return
	}
	if len(t.line)+len(b) > maxEventBytes {
		t.tooBig, t.line, t.data = true, t.line[:0], nil
		return
	}
	t.line = append(t.line, b...)
}

// endLine handles one complete line.
func (t *geminiTap) endLine() {
	line := t.line
	t.line = t.line[:0]
	switch {
	case len(line) == 0 && !t.tooBig:
		if len(t.data) > 0 {
			t.event(t.data)
		}
		t.data = t.data[:0]
	case len(line) == 0:
		t.tooBig, t.data = false, t.data[:0]
	case t.tooBig:
	case bytes.HasPrefix(line, []byte("data:")):
		v := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
		if len(t.data) > 0 {
			t.data = append(t.data, '\n')
		}
		if len(t.data)+len(v) > maxEventBytes {
			t.tooBig, t.data = true, nil
			return
		}
		t.data = append(t.data, v...)
	}
}

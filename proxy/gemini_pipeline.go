package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/continuity-dev/continuity/filter/gemini"
)

// geminiPipeline forwards a plain Gemini body of declared length, sent
// with a key (acct), to the upstream while it is still arriving: a 16 MiB
// history then costs about the filter's time left after the read, not
// that plus a second transfer. Its bytes go out as their fate is settled
// (gemini.Follower.Send): the conversation's key is known from the first
// contents and the issuer from the headers, so the policy is read as soon
// as the key is settled; an earlier turn's content is settled once a later
// user message has arrived; what could be in the current turn waits for
// the end, and so does the request's place in its session's turns.
//
// The output is the whole-body path's (sendGemini), byte for byte, and so
// is every failure's answer: a body that cannot be read, does not scan,
// passes a bound, or cannot be placed is answered with the Error it would
// have had before anything went, and the upstream request, whose body
// never ends, is aborted (see pipeline and unanswered). Until the policy
// is known — no key, or the policy or ledger unreadable — the body is
// read whole and goes the whole-body way, so those failures keep their
// order too. The policy is the one read when the key was settled.
func (p *Proxy) geminiPipeline(w http.ResponseWriter, r *http.Request, up geminiUpstream, acct Account, held *holding) error {
	if err := held.take(r.ContentLength); err != nil {
		return p.readFailed(r, err)
	}
	body := make([]byte, r.ContentLength)
	f := gemini.Follow(body)
	rd := &geminiReading{done: make(chan struct{})}
	go rd.read(w, r, body, f)
	defer func() {
		<-rd.done // the body's reader stops writing body before it is returned
		f.Stop()
	}()
	key, ok, err := f.Key()
	var on bool
	if err == nil && ok {
		on, err = p.earlyGeminiPolicy(r.Context(), key)
	}
	if err != nil || !ok {
		return p.geminiWhole(w, r, up, acct, body, f, rd)
	}
	fl := &flight{session: key, account: acct, on: on, placed: make(chan struct{})}
	var keep func(gemini.Candidate) bool
	var failed atomic.Pointer[error] // a ledger failure in a decision
	var unknowns atomic.Int64
	if on {
		keep = p.geminiKeep(r.Context(), acct, &failed, &unknowns)
	}
	var om gemini.Omitted
	placed := false // fl.seq is set
	p.pipeline(w, r, fl, up.rp, nil, func(emit func([][]byte) error) error {
		defer close(fl.placed)
		var err error
		om, err = f.Send(r.Context(), keep, func(bs [][]byte) error {
			if e := failed.Load(); e != nil {
				return *e
			}
			return emit(bs)
		}, func(doc *gemini.Doc) error {
			if e := failed.Load(); e != nil {
				return *e
			}
			err := p.placeFollowed(r, doc, fl)
			placed = err == nil
			return err
		})
		if e := failed.Load(); err == nil && e != nil {
			err = *e
		}
		if err == nil || errors.Is(err, errRequestDone) {
			return err
		}
		return p.geminiStopped(r, fl, f, rd, err)
	})
	if placed && fl.filterFailed() == nil {
		p.sentGemini(fl, om, min(int(unknowns.Load()), om.Signatures))
	}
	return nil
}

// geminiWhole finishes a pipelined read the whole-body way: it waits for
// the body, then answers its read's or scan's failure, or goes on as
// sendGemini.
func (p *Proxy) geminiWhole(w http.ResponseWriter, r *http.Request, up geminiUpstream, acct Account, body []byte, f *gemini.Follower, rd *geminiReading) error {
	<-rd.done
	if rd.err != nil {
		return p.readFailed(r, rd.err)
	}
	doc, invalid := f.Doc()
	if invalid != nil {
		return invalidPayload(invalid)
	}
	return p.sendGemini(w, r, up, payload{plain: body, sent: body}, doc, acct, true)
}

// geminiStopped is the Error a pipelined Gemini body that failed with err
// is answered with: the one the whole-body path gives, whose steps come in
// this order — the read's, the scan's, then the filter's or placement's.
// It waits for the read to end.
func (p *Proxy) geminiStopped(r *http.Request, fl *flight, f *gemini.Follower, rd *geminiReading, err error) error {
	<-rd.done
	if rd.err != nil {
		return p.readFailed(r, rd.err)
	}
	if _, invalid := f.Doc(); invalid != nil {
		return invalidPayload(invalid)
	}
	var named *Error
	if errors.As(err, &named) {
		return named
	}
	return notFiltered(fl, err)
}

// placeFollowed places the request of a pipelined body in its session's
// turns once the whole of it, doc, has been scanned, as placeGemini does,
// and sets fl.seq. Its policy is not read again: the bytes already sent
// were filtered by the one read when the key was settled.
func (p *Proxy) placeFollowed(r *http.Request, doc *gemini.Doc, fl *flight) error {
	keys := geminiKeys(r.Header, doc)
	if keys.session != fl.session {
		return internal(errors.New("the conversation's key changed after the body's first contents"))
	}
	pl, err := p.placeGeminiTurn(r, keys, fl.account)
	if err != nil {
		return err
	}
	fl.seq = pl.seq
	return nil
}

// earlyGeminiPolicy resolves session's policy without recording anything,
// as placeGemini would resolve it: the session born when the ledger or
// this run first saw it, else now.
func (p *Proxy) earlyGeminiPolicy(ctx context.Context, session string) (bool, error) {
	born := p.cfg.Now()
	at, ok, err := p.ledger.bornAt(ctx, session)
	switch {
	case err != nil:
		return false, err
	case ok:
		born = time.UnixMilli(at)
	default:
		if seen, ok := p.sessions.firstSeen(session); ok {
			born = seen
		}
	}
	return p.geminiPolicy(ctx, session, born)
}

// geminiReading is the read of a pipelined Gemini body, on its own
// goroutine, owned by geminiPipeline, which waits for done before the
// buffer is released: err is set before done is closed.
type geminiReading struct {
	done chan struct{}
	err  error
}

// read reads r's body into body, reporting each arrival to f, and stops
// f when the body stops before its end.
func (rd *geminiReading) read(w http.ResponseWriter, r *http.Request, body []byte, f *gemini.Follower) {
	defer close(rd.done)
	src := http.MaxBytesReader(w, r.Body, maxRequestBytes)
	for n := 0; n < len(body); {
		m, err := src.Read(body[n:])
		n += m
		f.Arrived(n)
		switch {
		case err == io.EOF && n < len(body):
			rd.err = io.ErrUnexpectedEOF
		case err != nil && err != io.EOF:
			rd.err = err
		}
		if rd.err != nil {
			f.Stop()
			return
		}
	}
}

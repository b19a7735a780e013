package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/hostapi"
)

// maxRequestBytes bounds a request body the proxy reads to filter. Real
// histories reach tens of MiB; this only stops a runaway client.
const maxRequestBytes = 512 << 20

// flight is what the response side of a filtered request needs to know.
type flight struct {
	session string
	account Account
	on      bool
	seq     int
	side    bool // a side request: passed unchanged, no turn
	// unknown counts the items omitted because no issuer is known for
	// them; the decisions add to it on the filter's goroutine.
	unknown atomic.Int64
	// filterErr is set by a pipelined request's filter when it fails
	// after the upstream request started (nil when not pipelined).
	filterErr *atomic.Pointer[error]
	// placed, when not nil, is closed once seq is set: a Gemini body
	// forwarded while it arrives is placed in its turn only at its end,
	// and an answer that comes first waits for it (see geminiPipeline).
	placed chan struct{}
}

type flightKey struct{}

// responses handles one POST …/responses or …/responses/compact, holding
// its body's charge on the budget and its lease on the body's buffer until
// it is answered. The charge is returned once filterAndSend has returned,
// so that the body's buffers are no longer reachable when the budget has
// them collected for the next (a pooled one is reachable only from a
// sync.Pool, which the budget's collections empty).
func (p *Proxy) responses(w http.ResponseWriter, r *http.Request) {
	held := p.hold(r)
	defer held.release()
	body := p.bodies.lease()
	defer body.release()
	if err := p.filterAndSend(w, r, held, body); err != nil {
		p.answerError(w, r, err)
	}
}

// filterAndSend reads, places, filters and forwards one request. It
// returns the Error of a step that failed before anything was sent, which
// the caller answers; once the request is forwarded, the answer is the
// upstream's (or upstreamFailed's) and it returns nil.
func (p *Proxy) filterAndSend(w http.ResponseWriter, r *http.Request, held *holding, buf *bodyLease) error {
	enc := r.Header.Get("Content-Encoding")
	if !decodable(enc) {
		// A coding no client is known to send: passed on as it came, and
		// said so, with the session its headers name (its body is unread).
		p.cfg.Log.Warn("compressed request body passed through unfiltered", zapPath(r), zap.String("encoding", enc),
			zap.String("session", placeKeys(r.Header, bodyKeys{}).session))
		p.plain.ServeHTTP(w, r)
		return nil
	}
	sent, st, err := readRequest(w, r, enc, held, buf)
	defer closeStream(st)
	if err != nil {
		return p.readFailed(r, err)
	}
	pay, err := openPayload(sent, enc, maxDecodedBytes, held)
	if err != nil {
		return p.openFailed(err)
	}
	body := pay.plain
	keys, invalid, err := keysOf(r.Header, body, st)
	if err != nil {
		return invalidPayload(err)
	}
	acct, authed := accountOf(r.Header)
	acct = upstreamOf(r).issuer(acct)
	if keys.session == "" || !authed {
		// No session to keep a policy for, or no account to bind content
		// to: the request goes out exactly as it came.
		closeStream(st)
		p.forward(w, r, [][]byte{sent}, nil)
		return nil
	}
	now := p.cfg.Now()
	if keys.side() {
		closeStream(st)
		return p.side(w, r, sent, keys, acct, now)
	}
	pl := p.sessions.place(keys, acct, now, p.cfg.Rule == RuleTurn)
	if err := p.syncLedger(r.Context(), keys.session, acct, &pl); err != nil {
		return ledgerFailed(keys.session, err)
	}
	born := pl.firstSeen.UnixMilli()
	res, err := p.cfg.Policy.Resolve(r.Context(), keys.session, &hostapi.SessionHeader{CreatedAt: &born})
	if err != nil {
		return policyFailed(keys.session, err)
	}
	on := p.sessions.pin(keys.session, pl.seq, res.Enabled, p.cfg.Rule == RuleTurn)
	fl := &flight{session: keys.session, account: acct, on: on, seq: pl.seq}
	if on && p.cfg.Rule == RuleProvenance && st != nil {
		return p.followed(w, r, st, len(body), invalid, fl, buf)
	}
	closeStream(st) // not filtered, or by the turn rule
	// A compressed body is filtered whole, then compressed whole: doing it
	// while pipelined measured slower (see docs/protocol.md §11).
	out, changed := [][]byte{body}, false
	var om filter.Omitted
	if on {
		fr, err := p.omit(r.Context(), body, pl, fl)
		if err != nil {
			return notFiltered(fl, err)
		}
		if changed = fr.Changed(); changed {
			out = fr.Pieces
		}
		om = fr.Omitted
	}
	if out, err = pay.out(out, changed); err != nil {
		return recompressFailed(err)
	}
	p.sent(fl, om)
	p.forward(w, r, out, fl)
	return nil
}

// sent records what a forwarded request omitted.
func (p *Proxy) sent(fl *flight, om filter.Omitted) {
	unknown := int(fl.unknown.Load())
	p.sessions.sent(fl.session, fl.seq, fl.account, fl.on, om, unknown, p.nowMs())
	if om.Items+om.Compactions > 0 {
		p.cfg.Log.Info("omitted", zap.String("session", fl.session), zap.String("account", fl.account.Short()),
			zap.Int("reasoning", om.Items), zap.Int("compaction", om.Compactions), zap.Int("unknownIssuer", unknown),
			zap.Int("strippedIds", om.StrippedIDs))
	}
}

// forward sends pieces as the request body to the upstream; fl is nil for
// a request passed through natively.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, pieces [][]byte, fl *flight) {
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
	out.GetBody = nil // never replayable: the proxy does not re-send
	if fl == nil {
		p.plain.ServeHTTP(w, out)
		return
	}
	p.filtered.ServeHTTP(w, withFlight(out, fl))
}

// withFlight attaches fl to the request the response side will see.
func withFlight(r *http.Request, fl *flight) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), flightKey{}, fl))
}

// pin returns the policy a request of turn seq works under. Under the turn
// rule the policy is fixed at a turn's first request, as in the plugin, so
// a change applies from the next turn; under provenance every request uses
// the current policy.
func (r *registry) pin(id string, seq int, on, perTurn bool) bool {
	if !perTurn {
		return on
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sessions[id]
	if !ok {
		return on
	}
	if s.pinnedSeq != seq {
		s.pinnedSeq, s.pinnedOn = seq, on
	}
	return s.pinnedOn
}

// modifyResponse puts the tap on a filtered request's response and handles
// upstream errors: a replay rejection is recorded and, while the policy is
// off, answered with a hint.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	fl, _ := resp.Request.Context().Value(flightKey{}).(*flight)
	if fl == nil {
		return nil
	}
	if resp.StatusCode >= 400 {
		if fl.side {
			return nil // no replay to reject, no policy to hint at
		}
		return p.upstreamError(resp, fl)
	}
	stream := bytes.HasPrefix([]byte(resp.Header.Get("Content-Type")), []byte("text/event-stream"))
	ctx := context.WithoutCancel(resp.Request.Context())
	resp.Body = newTap(resp.Body, stream, fl.account, p.issuers.record, func(fps [][32]byte) {
		if err := p.issuers.persist(ctx, fps, fl.account); err != nil {
			p.cfg.Log.Warn("issued items not recorded in the ledger", zap.String("session", fl.session), zapErr(err))
		}
	})
	return nil
}

// now is the clock in ms, for records.
func (p *Proxy) nowMs() int64 { return p.cfg.Now().UnixMilli() }

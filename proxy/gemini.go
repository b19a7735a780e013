package proxy

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/filter/gemini"
	"github.com/continuity-dev/continuity/hostapi"
)

// geminiRequest handles one POST …/models/{model}:generateContent or
// :streamGenerateContent. The body is scanned by package filter/gemini
// while it is read (readGemini); the conversation is the key it derives from the first
// user content (gemini-cli sends no session id with an API key); with the
// session's policy on, the thought signatures not issued to this request's
// (upstream, key) are removed by Gemini's rules. Unknown issuers fail
// closed: a signature the ledger never saw issued to this key goes. The
// answer streams back through a tap that records the signatures it issues.
func (p *Proxy) geminiRequest(w http.ResponseWriter, r *http.Request, up geminiUpstream) {
	enc := r.Header.Get("Content-Encoding")
	if !decodable(enc) {
		p.cfg.Log.Warn("compressed request body passed through unfiltered", zapPath(r), zap.String("encoding", enc))
		up.plain.ServeHTTP(w, r)
		return
	}
	held := p.hold(r)
	defer held.release()
	if err := p.filterGemini(w, r, up, enc, held); err != nil {
		p.answerError(w, r, err)
	}
}

// filterGemini reads, places, filters and forwards one Gemini request,
// returning the Error of a step that failed before anything was sent (nil
// once it is forwarded). A plain body of a declared length from
// pipelineFrom bytes, sent with a key, is forwarded while it arrives
// (geminiPipeline).
func (p *Proxy) filterGemini(w http.ResponseWriter, r *http.Request, up geminiUpstream, enc string, held *holding) error {
	acct, authed := geminiAccountOf(r, up.issuer)
	if n := r.ContentLength; authed && codingOf(enc) == "" && n >= pipelineFrom && n <= maxRequestBytes {
		return p.geminiPipeline(w, r, up, acct, held)
	}
	pay, doc, invalid, err := readGemini(w, r, enc, held)
	var rerr readError
	switch {
	case errors.As(err, &rerr):
		return p.readFailed(r, rerr.err)
	case err != nil:
		return p.openFailed(err)
	case invalid != nil:
		return invalidPayload(invalid)
	}
	return p.sendGemini(w, r, up, pay, doc, acct, authed)
}

// sendGemini places, filters and forwards a Gemini request whose body
// has been read and scanned whole (doc).
func (p *Proxy) sendGemini(w http.ResponseWriter, r *http.Request, up geminiUpstream, pay payload, doc *gemini.Doc, acct Account, authed bool) error {
	keys := geminiKeys(r.Header, doc)
	if keys.session == "" || !authed {
		p.forwardGemini(w, r, up, [][]byte{pay.sent}, nil)
		return nil
	}
	fl, err := p.placeGemini(r, keys, acct)
	if err != nil {
		return err
	}
	out, changed := [][]byte{pay.plain}, false
	var om gemini.Omitted
	unknown := 0
	if fl.on {
		var res gemini.Result
		res, unknown, err = p.omitGemini(r.Context(), doc, acct)
		if err != nil {
			return notFiltered(fl, err)
		}
		if changed = res.Changed(); changed {
			out = res.Pieces
		}
		om = res.Omitted
	}
	if out, err = pay.out(out, changed); err != nil {
		return recompressFailed(err)
	}
	p.sentGemini(fl, om, unknown)
	p.forwardGemini(w, r, up, out, fl)
	return nil
}

// sentGemini records what a forwarded Gemini request omitted.
func (p *Proxy) sentGemini(fl *flight, om gemini.Omitted, unknown int) {
	p.sessions.sent(fl.session, fl.seq, fl.account, fl.on, filter.Omitted{Items: om.Signatures}, unknown, p.nowMs())
	if om.Signatures > 0 {
		p.cfg.Log.Info("omitted", zap.String("session", fl.session), zap.String("account", fl.account.Short()),
			zap.Int("thoughtSignatures", om.Signatures), zap.Int("unknownIssuer", unknown), zap.Int("thoughtParts", om.Parts),
			zap.Int("contents", om.Contents), zap.Int("sentinels", om.Sentinels))
	}
}

// geminiKeys places a Gemini request: its conversation key, and the turn
// signal from the contents' shape (a tool step continues the turn).
func geminiKeys(h http.Header, doc *gemini.Doc) requestKeys {
	k := requestKeys{client: clientName(h)}
	// gemini-cli's User-Agent product is GeminiCLI[-MODE]/VERSION/MODEL
	// (GeminiCLI-tui/0.61.0/gemini-3.1-pro-preview): the model changes
	// within one conversation, so the page shows the client only.
	if name, rest, ok := strings.Cut(k.client, "/"); ok && strings.HasPrefix(name, "GeminiCLI") {
		version, _, _ := strings.Cut(rest, "/")
		k.client = name + "/" + version
	}
	k.session, _ = doc.Key()
	k.users = doc.Messages()
	k.lastUser, k.lastTool = doc.EndsInMessage(), !doc.EndsInMessage() && doc.Steps() > 0
	k.history = doc.Contents() > 1
	return k
}

// placeGemini records the request in the session registry and the ledger
// and resolves its policy, returning the Error when it cannot.
func (p *Proxy) placeGemini(r *http.Request, keys requestKeys, acct Account) (*flight, error) {
	pl, err := p.placeGeminiTurn(r, keys, acct)
	if err != nil {
		return nil, err
	}
	on, err := p.geminiPolicy(r.Context(), keys.session, pl.firstSeen)
	if err != nil {
		return nil, err
	}
	return &flight{session: keys.session, account: acct, on: on, seq: pl.seq}, nil
}

// placeGeminiTurn records the request in the session registry and the
// ledger, returning the Error when it cannot.
func (p *Proxy) placeGeminiTurn(r *http.Request, keys requestKeys, acct Account) (placed, error) {
	pl := p.sessions.place(keys, acct, p.cfg.Now(), false)
	if err := p.syncLedger(r.Context(), keys.session, acct, &pl); err != nil {
		return pl, ledgerFailed(keys.session, err)
	}
	return pl, nil
}

// geminiPolicy resolves session's policy, the session born at born.
func (p *Proxy) geminiPolicy(ctx context.Context, session string, born time.Time) (bool, error) {
	ms := born.UnixMilli()
	res, err := p.cfg.Policy.Resolve(ctx, session, &hostapi.SessionHeader{CreatedAt: &ms})
	if err != nil {
		return false, policyFailed(session, err)
	}
	return res.Enabled, nil
}

// omitGemini filters doc for account acct: a signature is kept only when
// the ledger knows it was issued to acct (which names the upstream too).
// unknown counts the signatures refused for want of a known issuer, which
// the turn records count apart from foreign ones.
func (p *Proxy) omitGemini(ctx context.Context, doc *gemini.Doc, acct Account) (res gemini.Result, unknown int, err error) {
	var failed atomic.Pointer[error]
	var unknowns atomic.Int64
	res, err = doc.Select(ctx, p.geminiKeep(ctx, acct, &failed, &unknowns))
	if e := failed.Load(); err == nil && e != nil {
		return res, 0, *e
	}
	return res, min(int(unknowns.Load()), res.Omitted.Signatures), err
}

// geminiKeep is the decision of a request of account acct: keep what the
// ledger knows was issued to acct. A ledger failure is stored in failed
// (the signature is then not kept), and each signature of unknown issuer
// counted in unknowns.
func (p *Proxy) geminiKeep(ctx context.Context, acct Account, failed *atomic.Pointer[error], unknowns *atomic.Int64) func(gemini.Candidate) bool {
	return func(c gemini.Candidate) bool {
		issuer, known, err := p.issuers.issuer(ctx, c.Fingerprint)
		if err != nil {
			failed.CompareAndSwap(nil, &err)
			return false
		}
		if !known {
			unknowns.Add(1)
		}
		return known && issuer == acct
	}
}

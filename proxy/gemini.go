package proxy

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/filter/gemini"
	"github.com/continuity-dev/continuity/hostapi"
)

// geminiRequest handles one POST …/models/{model}:generateContent or
// :streamGenerateContent. The body is read whole and scanned by package
// filter/gemini; the conversation is the key it derives from the first
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
	sent, err := readBody(w, r, held)
	if err != nil {
		if errors.Is(err, errBodyTooSlow) {
			p.answerTooSlow(w, r, err)
			return
		}
		if p.answerBudget(w, r, err) {
			return
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE", "continuity proxy: the request body is larger than "+strconv.Itoa(maxRequestBytes)+" bytes")
		} else if r.Context().Err() == nil {
			writeError(w, http.StatusBadRequest, "REQUEST_UNREADABLE", "continuity proxy: the request body could not be read: "+err.Error())
		}
		return
	}
	pay, err := openPayload(sent, enc, maxDecodedBytes, held)
	if p.answerBudget(w, r, err) {
		return
	}
	if err != nil {
		status, code := http.StatusBadRequest, "REQUEST_UNDECODABLE"
		if errors.Is(err, errDecodedTooLarge) {
			status, code = http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE"
		}
		writeError(w, status, code, "continuity proxy: the request was not sent: "+err.Error())
		return
	}
	doc, err := gemini.Scan(pay.plain)
	if err != nil {
		writeError(w, http.StatusBadRequest, diagCode(err, diag.InvalidPayload), "continuity proxy: the request was not sent: "+err.Error())
		return
	}
	acct, authed := geminiAccountOf(r, up.issuer)
	keys := geminiKeys(r.Header, doc)
	if keys.session == "" || !authed {
		p.forwardGemini(w, r, up, [][]byte{sent}, nil)
		return
	}
	fl, ok := p.placeGemini(w, r, keys, acct)
	if !ok {
		return
	}
	out, changed := [][]byte{pay.plain}, false
	var om gemini.Omitted
	unknown := 0
	if fl.on {
		var res gemini.Result
		res, unknown, err = p.omitGemini(r.Context(), doc, acct)
		if err != nil {
			p.notFiltered(w, fl, err)
			return
		}
		if changed = res.Changed(); changed {
			out = res.Pieces
		}
		om = res.Omitted
	}
	if out, err = pay.out(out, changed); err != nil {
		writeError(w, http.StatusInternalServerError, "INTERNAL", "continuity proxy: the filtered body could not be compressed again: "+err.Error())
		return
	}
	p.sessions.sent(fl.session, fl.seq, fl.account, fl.on, filter.Omitted{Items: om.Signatures}, unknown, p.nowMs())
	if om.Signatures > 0 {
		p.cfg.Log.Info("omitted", zap.String("session", fl.session), zap.String("account", fl.account.Short()),
			zap.Int("thoughtSignatures", om.Signatures), zap.Int("unknownIssuer", unknown), zap.Int("thoughtParts", om.Parts),
			zap.Int("contents", om.Contents), zap.Int("sentinels", om.Sentinels))
	}
	p.forwardGemini(w, r, up, out, fl)
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
// and resolves its policy, answering the request itself when it cannot.
func (p *Proxy) placeGemini(w http.ResponseWriter, r *http.Request, keys requestKeys, acct Account) (*flight, bool) {
	pl := p.sessions.place(keys, acct, p.cfg.Now(), false)
	if err := p.syncLedger(r.Context(), keys.session, acct, &pl); err != nil {
		p.cfg.Log.Error("ledger unreadable", zap.String("session", keys.session), zapErr(err))
		writeError(w, http.StatusServiceUnavailable, diag.StorageUnavailable, "continuity proxy: the request was not sent: "+err.Error())
		return nil, false
	}
	born := pl.firstSeen.UnixMilli()
	res, err := p.cfg.Policy.Resolve(r.Context(), keys.session, &hostapi.SessionHeader{CreatedAt: &born})
	if err != nil {
		p.cfg.Log.Error("policy unreadable", zap.String("session", keys.session), zapErr(err))
		writeError(w, http.StatusInternalServerError, diagCode(err, "POLICY_UNAVAILABLE"), "continuity proxy: the session policy could not be read: "+err.Error())
		return nil, false
	}
	return &flight{session: keys.session, account: acct, on: res.Enabled, seq: pl.seq}, true
}

// omitGemini filters doc for account acct: a signature is kept only when
// the ledger knows it was issued to acct (which names the upstream too).
// unknown counts the signatures refused for want of a known issuer, which
// the turn records count apart from foreign ones.
func (p *Proxy) omitGemini(ctx context.Context, doc *gemini.Doc, acct Account) (res gemini.Result, unknown int, err error) {
	var failed atomic.Pointer[error]
	var unknowns atomic.Int64
	res, err = doc.Select(ctx, func(c gemini.Candidate) bool {
		issuer, known, err := p.issuers.issuer(ctx, c.Fingerprint)
		if err != nil {
			failed.CompareAndSwap(nil, &err)
			return false
		}
		if !known {
			unknowns.Add(1)
		}
		return known && issuer == acct
	})
	if e := failed.Load(); err == nil && e != nil {
		return res, 0, *e
	}
	return res, min(int(unknowns.Load()), res.Omitted.Signatures), err
}

package proxy

import (
	"bytes"
	"io"
	"net/http"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/rejection"
)

// HintHeader carries the proxy's hint on a replay rejection answered while
// the session's policy is off. The status and body stay the upstream's.
const HintHeader = "X-Continuity-Hint"

// upstreamError classifies an upstream error answer of a filtered request.
// The body's first rejection.MaxBody bytes are read to classify it and then
// passed on in front of the rest, so the client gets the body unchanged.
func (p *Proxy) upstreamError(resp *http.Response, fl *flight) error {
	head, err := io.ReadAll(io.LimitReader(resp.Body, rejection.MaxBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	if err != nil {
		return nil // the client reads the same failure from the body
	}
	v := rejection.Classify(resp.StatusCode, string(head))
	if !v.Rejected() {
		return nil
	}
	hinted := !fl.on && v.ReplayScope()
	p.sessions.rejected(fl.session, RejectionView{At: p.nowMs(), Turn: fl.seq, Status: resp.StatusCode, Kind: string(v.Kind),
		Item: v.Item, Policy: onOff(fl.on), Hinted: hinted})
	fields := []zap.Field{zap.String("session", fl.session), zap.String("account", fl.account.Short()),
		zap.Int("status", resp.StatusCode), zap.String("verdict", v.String()), zap.String("policy", onOff(fl.on))}
	if !hinted {
		p.cfg.Log.Warn("replay rejection", fields...)
		return nil
	}
	hint := p.hint(fl.session)
	resp.Header.Set(HintHeader, hint)
	p.cfg.Log.Warn("replay rejection; "+hint, fields...)
	return nil
}

// hint names the exact command, and the page when there is one, that turns
// visible-history continuation on for the session.
func (p *Proxy) hint(session string) string {
	h := "visible-history continuation is off for this session; turn it on with: " +
		p.cfg.PolicyCommand + " " + shellQuote(session) + " on"
	if p.cfg.PageURL != "" {
		h += " (or on the status page " + p.cfg.PageURL + ")"
	}
	return h
}

// shellQuote quotes s for a POSIX shell when it needs quoting, and makes it
// safe for an HTTP header value: only printable ASCII is kept as it is.
func shellQuote(s string) string {
	plain := s != ""
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', bytes.IndexByte([]byte("-_.:/@+="), c) >= 0:
		case c < 0x20 || c >= 0x7f:
			c = '?'
			plain = false
		default:
			plain = false
		}
		if c == '\'' {
			b = append(b, `'\''`...)
			continue
		}
		b = append(b, c)
	}
	if plain {
		return s
	}
	return "'" + string(b) + "'"
}

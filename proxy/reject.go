package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

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
	rest := resp.Body
	head, err := io.ReadAll(io.LimitReader(rest, rejection.MaxBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), rest), rest}
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
	hint := p.hint(shellQuote(fl.session))
	resp.Header.Set(HintHeader, hint)
	p.cfg.Log.Warn("replay rejection; "+hint, fields...)
	if b, ok := withHint(head, resp.Header.Get("Content-Type"), p.hint(posixQuote(fl.session))); ok {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), rest), rest}
		if resp.ContentLength >= 0 {
			resp.ContentLength += int64(len(b) - len(head))
			resp.Header.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
		}
	}
	return nil
}

// hint names the exact command, with the session quoted as given, and the
// page when there is one, that turns visible-history continuation on for
// the session.
func (p *Proxy) hint(quoted string) string {
	h := "visible-history continuation is off for this session; turn it on with: " +
		p.cfg.PolicyCommand + " " + quoted + " on"
	if p.cfg.PageURL != "" {
		h += " (or on the status page " + p.cfg.PageURL + "; " + p.cfg.PageCommand + " prints its address with its key)"
	}
	return h
}

// withHint appends hint to the message of an upstream error whose first
// bytes are head, so clients that show only the message (Codex, opencode,
// pi) show it too: inside the JSON string error.message (else message),
// or at the end of a plain-text body. Every other byte stays. ok is false
// when head holds no message to append to.
func withHint(head []byte, ctype, hint string) ([]byte, bool) {
	if !strings.HasPrefix(ctype, "application/json") {
		if strings.HasPrefix(ctype, "text/plain") && len(head) < rejection.MaxBody {
			return append(append(append([]byte{}, head...), " — "...), hint...), true
		}
		return nil, false
	}
	m := gjson.GetBytes(head, "error.message")
	if m.Type != gjson.String {
		m = gjson.GetBytes(head, "message")
	}
	if m.Type != gjson.String || m.Index <= 0 {
		return nil, false
	}
	var esc bytes.Buffer
	enc := json.NewEncoder(&esc)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(" — " + hint); err != nil {
		return nil, false
	}
	in := bytes.TrimSuffix(esc.Bytes(), []byte("\n"))
	in = in[1 : len(in)-1]          // the string's contents, without its quotes
	end := m.Index + len(m.Raw) - 1 // the closing quote
	out := make([]byte, 0, len(head)+len(in))
	return append(append(append(out, head[:end]...), in...), head[end:]...), true
}

// posixQuote quotes s so that it pastes into a POSIX shell as exactly s,
// whatever bytes it holds: bare when it needs no quoting, else in single
// quotes, each ' written '\”.
func posixQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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

// QuoteSession quotes a session key for a POSIX shell exactly, as the
// hint in an error's message does, for commands that print session keys.
func QuoteSession(s string) string { return posixQuote(s) }

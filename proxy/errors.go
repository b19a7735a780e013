package proxy

import (
	"encoding/json"
	"errors"
	"net/http"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/continuity-dev/continuity/diag"
)

// Error is a failure the proxy answers itself, as a value: each step of a
// request returns one instead of writing its own answer, and one writer,
// answerError, logs it and answers it (in the manner of Caddy's
// HandlerError). Code is one of diag's proxy codes or a §7 code the
// filter, ledger or settings store named; Message is the whole sentence
// the client shows and says what to do next.
type Error struct {
	Status  int
	Code    string
	Message string
	// Err is the cause, when there is one; errors.Is and As see it.
	Err error
	// Header is set on the answer (Retry-After, Connection: close).
	Header http.Header
	// log is the log line's message and its fields beyond the path,
	// code and status (the session, the budget); a line says "answered
	// with an error" when it is empty.
	log    string
	fields []zap.Field
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// fail is an Error with no cause of its own beyond its message.
func fail(status int, code, message string, cause error) *Error {
	return &Error{Status: status, Code: code, Message: message, Err: cause}
}

// logs names the log line of e and adds fields to it.
func (e *Error) logs(msg string, fields ...zap.Field) *Error {
	e.log, e.fields = msg, append(e.fields, fields...)
	return e
}

// errClientGone is what a step returns when the client went away before
// it could be answered: it is logged at debug level and not answered.
var errClientGone = errors.New("the client went away before the proxy answered")

// internal is the Error for a failure that carries no code of its own.
func internal(err error) *Error {
	return fail(http.StatusInternalServerError, diag.ProxyInternal, "continuity proxy: "+err.Error(), err)
}

// answerError logs err and answers it: an *Error with its status, code,
// message and headers; errClientGone with nothing; any other error as
// INTERNAL (500). A 500 or a storage failure logs at error level, the
// rest (a client's mistake, a limit, an upstream down) as warnings.
func (p *Proxy) answerError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errClientGone) {
		p.cfg.Log.Debug("client went away", zapPath(r))
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		e = internal(err)
	}
	level := zapcore.WarnLevel
	if e.Status == http.StatusInternalServerError || e.Code == diag.StorageUnavailable {
		level = zapcore.ErrorLevel
	}
	msg := e.log
	if msg == "" {
		msg = "answered with an error"
	}
	fields := append([]zap.Field{zapPath(r), zapCode(e.Code), zap.Int("status", e.Status), zapErr(e)}, e.fields...)
	p.cfg.Log.Log(level, msg, fields...)
	for k, vs := range e.Header {
		w.Header()[k] = vs
	}
	writeError(w, e.Status, e.Code, e.Message)
}

// writeError writes an error answer in the OpenAI error envelope so that
// every client shows its message; type is always "continuity_proxy_error"
// so it is never mistaken for the supplier's. Only answerError calls it.
func writeError(w http.ResponseWriter, status int, code, message string) {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": "continuity_proxy_error", "param": nil, "code": code}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func zapPath(r *http.Request) zap.Field { return zap.String("path", r.URL.Path) }
func zapCode(code string) zap.Field     { return zap.String("code", code) }
func zapErr(err error) zap.Field        { return zap.String("error", err.Error()) }

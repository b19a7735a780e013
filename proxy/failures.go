package proxy

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
)

// The Errors of a request's steps that more than one route returns: the
// Responses route (forward.go) and the Gemini route (gemini.go) read,
// decode, place and filter alike.

// readFailed is the Error of a body that could not be read whole: too
// slow, over the budget, over maxRequestBytes, or unreadable (unanswered
// when the client went away).
func (p *Proxy) readFailed(r *http.Request, err error) error {
	if errors.Is(err, errBodyTooSlow) {
		return p.tooSlowError(err)
	}
	if e := p.budgetError(err); e != nil {
		return e
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return fail(http.StatusRequestEntityTooLarge, diag.ProxyRequestTooLarge,
			"continuity proxy: the request body is larger than "+strconv.Itoa(maxRequestBytes)+" bytes", err)
	}
	if r.Context().Err() != nil {
		return errClientGone
	}
	return fail(http.StatusBadRequest, diag.ProxyRequestUnreadable, "continuity proxy: the request body could not be read: "+err.Error(), err)
}

// openFailed is the Error of a body that did not decompress: over the
// budget, over maxDecodedBytes, or not in its coding.
func (p *Proxy) openFailed(err error) error {
	if e := p.budgetError(err); e != nil {
		return e
	}
	status, code := http.StatusBadRequest, diag.ProxyRequestUndecodable
	if errors.Is(err, errDecodedTooLarge) {
		status, code = http.StatusRequestEntityTooLarge, diag.ProxyRequestTooLarge
	}
	return fail(status, code, "continuity proxy: the request was not sent: "+err.Error(), err)
}

// invalidPayload is the Error of a body the filter's scan refused: its §7
// code (COPILOT_CONTINUATION_INVALID_PAYLOAD when it names none), 400.
func invalidPayload(err error) error {
	return fail(http.StatusBadRequest, diagCode(err, diag.InvalidPayload), "continuity proxy: the request was not sent: "+err.Error(), err)
}

// ledgerFailed is the Error of a ledger that could not be read or
// written while placing a session's request (503, nothing sent).
func ledgerFailed(session string, err error) error {
	return fail(http.StatusServiceUnavailable, diag.StorageUnavailable, "continuity proxy: the request was not sent: "+err.Error(), err).
		logs("ledger unreadable", zap.String("session", session))
}

// policyFailed is the Error of a session policy that could not be read
// (500, the store's §7 code or POLICY_UNAVAILABLE).
func policyFailed(session string, err error) error {
	return fail(http.StatusInternalServerError, diagCode(err, diag.ProxyPolicyUnavailable),
		"continuity proxy: the session policy could not be read: "+err.Error(), err).
		logs("policy unreadable", zap.String("session", session))
}

// recompressFailed is the Error of a filtered body that could not be
// compressed again.
func recompressFailed(err error) error {
	return fail(http.StatusInternalServerError, diag.ProxyInternal,
		"continuity proxy: the filtered body could not be compressed again: "+err.Error(), err)
}

// notFiltered is the Error of a request the filter did not let out: 503
// when the ledger failed, else 400 (the payload is at fault), with the
// filter's §7 code.
func notFiltered(fl *flight, err error) error {
	status := http.StatusBadRequest
	if diag.Has(err, diag.StorageUnavailable) {
		status = http.StatusServiceUnavailable
	}
	return fail(status, diagCode(err, diag.InvalidPayload), "continuity proxy: the request was not sent: "+err.Error(), err).
		logs("request not filtered", zap.String("session", fl.session))
}

// unanswered is the Error of a request the upstream never answered (the
// ReverseProxy's ErrorHandler, upstreamFailed, answers it): 408
// REQUEST_BODY_TOO_SLOW when its body fell behind the minimum rate;
// unanswered when the client went away (its request was cancelled, and so
// was the upstream's); the filter's when a pipelined filter failed after
// the upstream request began (a Gemini body's read, scan, filter or
// placement: the Error it would have been answered with unsent); else 504 UPSTREAM_TIMEOUT for a timeout
// and 502 UPSTREAM_UNREACHABLE for any other failure.
func (p *Proxy) unanswered(r *http.Request, err error) error {
	if slow := tooSlow(r); slow != nil {
		return p.tooSlowError(slow)
	}
	if r.Context().Err() != nil {
		return errClientGone
	}
	fl, _ := r.Context().Value(flightKey{}).(*flight)
	if ferr := fl.filterFailed(); ferr != nil {
		var named *Error // a Gemini body's failure, answered as before anything went
		if errors.As(ferr, &named) {
			return named
		}
		return notFiltered(fl, ferr)
	}
	status, code := http.StatusBadGateway, diag.ProxyUpstreamUnreachable
	var timeout interface{ Timeout() bool }
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &timeout) && timeout.Timeout() {
		status, code = http.StatusGatewayTimeout, diag.ProxyUpstreamTimeout
	}
	return fail(status, code, "continuity proxy: the upstream did not answer: "+err.Error(), err).logs("upstream failed")
}

// upstreamFailed is the ReverseProxy's ErrorHandler: it answers what
// unanswered makes of the failure.
func (p *Proxy) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	p.answerError(w, r, p.unanswered(r, err))
}

// diagCode is the code of a named diagnostic, else fallback.
func diagCode(err error, fallback string) string {
	var de *diag.Error
	if errors.As(err, &de) {
		return de.Code
	}
	return fallback
}

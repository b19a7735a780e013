package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/continuity-dev/continuity/diag"
)

// TestAnswerError: the one writer answers an Error with its status,
// code, message and headers in the OpenAI envelope and logs it once with
// its path, code, status and fields; a plain error is a 500 INTERNAL at
// error level; errClientGone, wrapped or not, writes nothing.
func TestAnswerError(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	p := &Proxy{cfg: Config{Log: zap.New(core)}}
	answer := func(err error) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		p.answerError(w, httptest.NewRequest(http.MethodPost, "/v1/responses", nil), err)
		return w
	}
	e := fail(http.StatusServiceUnavailable, diag.ProxyBodyBudgetExhausted, "continuity proxy: wait", errBudgetBusy).
		logs("budget", zap.Int64("budget", 7))
	e.Header = http.Header{"Retry-After": {"2"}}
	w := answer(fmt.Errorf("step: %w", e))
	var env struct {
		Error struct{ Message, Type, Code string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	if w.Code != 503 || w.Header().Get("Retry-After") != "2" || w.Header().Get("Content-Type") != "application/json" ||
		env.Error.Code != "BODY_BUDGET_EXHAUSTED" || env.Error.Message != "continuity proxy: wait" || env.Error.Type != "continuity_proxy_error" {
		t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
	}
	if !errors.Is(e, errBudgetBusy) {
		t.Fatal("an Error does not unwrap to its cause")
	}
	got := logs.TakeAll()
	if len(got) != 1 || got[0].Message != "budget" || got[0].Level != zapcore.WarnLevel {
		t.Fatalf("logs: %v", got)
	}
	if f := got[0].ContextMap(); f["path"] != "/v1/responses" || f["code"] != "BODY_BUDGET_EXHAUSTED" || f["status"] != int64(503) || f["budget"] != int64(7) {
		t.Fatalf("the log line says %v", f)
	}

	w = answer(errors.New("broken"))
	if w.Code != 500 || !strings.Contains(w.Body.String(), `"code":"INTERNAL"`) || !strings.Contains(w.Body.String(), "continuity proxy: broken") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if got := logs.TakeAll(); len(got) != 1 || got[0].Level != zapcore.ErrorLevel {
		t.Fatalf("logs: %v", got)
	}

	for _, err := range []error{errClientGone, fmt.Errorf("read: %w", errClientGone)} {
		if w := answer(err); w.Body.Len() != 0 || w.Code != 200 || len(w.Header()) != 0 {
			t.Fatalf("%v answered %d %v %s", err, w.Code, w.Header(), w.Body)
		}
	}
}

// TestAPIRoutes: the page API's router answers only its three routes with
// their methods; another method on a route's path, HEAD on the state, an
// unknown path and a path the router would clean (and redirect) are all
// 404 NOT_FOUND in the proxy's envelope, unguarded; a route's refusal is
// 403 PAGE_FORBIDDEN and counted.
func TestAPIRoutes(t *testing.T) {
	p, px := newTestProxy(t, "http://127.0.0.1:1", "")
	do := func(method, path string, secret bool) (int, string) {
		req, _ := http.NewRequest(method, px.URL+path, strings.NewReader(`{}`))
		if secret {
			req.Header.Set(SecretHeader, p.cfg.Secret)
		}
		req.Header.Set("Origin", px.URL)
		req.Header.Set("Content-Type", "application/json")
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct{ method, path string }{
		{"POST", "/continuity/state"}, {"HEAD", "/continuity/state"}, {"GET", "/continuity/session"},
		{"PUT", "/continuity/default"}, {"GET", "/continuity/"}, {"GET", "/continuity/nope"},
		{"GET", "/continuity//state"}, {"GET", "/continuity/x/../state"}, {"GET", "/continuity/state/"},
	} {
		status, body := do(c.method, c.path, true)
		if status != 404 || (c.method != "HEAD" && !strings.Contains(body, `"code":"NOT_FOUND"`)) {
			t.Errorf("%s %s: %d %s", c.method, c.path, status, body)
		}
	}
	if status, body := do("GET", "/continuity/state", true); status != 200 || !strings.Contains(body, `"rule"`) {
		t.Fatalf("GET state: %d %s", status, body)
	}
	before := p.refused.Load()
	if status, body := do("POST", "/continuity/default", false); status != 403 || !strings.Contains(body, `"code":"PAGE_FORBIDDEN"`) {
		t.Fatalf("POST default without the secret: %d %s", status, body)
	}
	if status, body := do("POST", "/continuity/default", true); status != 400 || !strings.Contains(body, `"code":"BAD_REQUEST"`) {
		t.Fatalf("POST default with {}: %d %s", status, body)
	}
	if p.refused.Load() != before+1 {
		t.Fatalf("refused %d, want %d", p.refused.Load(), before+1)
	}
}

package server_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/host"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/jsonscan"
	"github.com/continuity-dev/continuity/server"
)

func TestRequestBeforeInitializeIsRefused(t *testing.T) {
	h := startHost(t, host.Config{})
	_, rerr, err := h.Call(ctxT(t), "remote/invoke", map[string]any{"namespace": "continuity", "method": "notices", "args": map[string]any{"agentId": "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	if rerr == nil || rerr.Code != -32002 {
		t.Fatalf("got %v, want -32002", rerr)
	}
	if _, err := h.Initialize(ctxT(t), host.AllCapabilities()); err != nil {
		t.Fatalf("initialize after a refused request: %v", err)
	}
}

func TestMalformedFramesKeepTheConnection(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	type frameCase struct {
		line string
		code int
	}
	cases := []frameCase{
		{`this is not json`, -32700},
		{`{"jsonrpc":"2.0","id":7,"method":`, -32700},
		{`"a string"`, -32700},
		{`[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]`, -32600},
		{`{"jsonrpc":"2.0","result":{}}`, -32600},
	}
	// Large frames are validated on two goroutines, the second half from an
	// element boundary of the input array: a defect on either side, or
	// after the array, is still a parse error.
	var items []string
	for i := range 5000 {
		items = append(items, `{"type":"message","role":"user","content":"line `+strconv.Itoa(i)+` of a long history"}`)
	}
	big := func(edit func([]string) []string, tail string) string {
		return `{"jsonrpc":"2.0","id":9,"method":"llm/payload","params":{"requestId":"r","sessionId":"s1","turn":1,"step":1,` +
			`"provider":"github-copilot-preview","model":"m","purpose":"chat","payload":{"input":[` +
			strings.Join(edit(slices.Clone(items)), ",") + `]` + tail
	}
	at := func(k int, bad string) func([]string) []string {
		return func(it []string) []string { it[k] = bad; return it }
	}
	keep := func(it []string) []string { return it }
	if n := len(big(keep, `}}}`)); n < jsonscan.ParallelFrom {
		t.Fatalf("the large frames (%d bytes) are too small to be split", n)
	}
	cases = append(cases,
		frameCase{big(at(3500, "{\"content\":\"raw \x01 control\"}"), `}}}`), -32700},
		frameCase{big(at(100, `{"content":"unterminated}`), `}}}`), -32700},
		frameCase{big(at(4999, `{"content":"x",}`), `}}}`), -32700},
		frameCase{big(keep, `}}`), -32700},
		frameCase{big(at(2500, `{"content":"a"},{"content":"b"`), `}}}`), -32700},
	)
	for _, c := range cases {
		if err := h.SendLine([]byte(c.line)); err != nil {
			t.Fatal(err)
		}
		m, err := h.NextOrphan(ctxT(t))
		if err != nil {
			t.Fatalf("%.80q: %v", c.line, err)
		}
		if m.Error == nil || m.Error.Code != c.code {
			t.Fatalf("%.80q: got %s, want code %d", c.line, m.Raw, c.code)
		}
	}
	// A request with an id but no jsonrpc member is answered with its id.
	if err := h.SendLine([]byte(`{"id":"bad_1","method":"shutdown"}`)); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := h.NextMessage(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind != host.KindResponse {
			continue // the plugin's own calls to the host
		}
		if m.Error == nil || m.Error.Code != -32600 || string(m.ID) != `"bad_1"` {
			t.Fatalf("missing jsonrpc: %s", m.Raw)
		}
		break
	}
	// The connection is still up: a request is answered.
	res, rerr, err := h.Call(ctxT(t), "remote/invoke", map[string]any{"namespace": "continuity", "method": "notices", "args": map[string]any{"agentId": "s1"}})
	if err != nil || rerr != nil {
		t.Fatalf("after malformed frames: %v %v", err, rerr)
	}
	if !strings.Contains(string(res), `"ok":true`) {
		t.Fatalf("result %s", res)
	}
}

func TestUnknownMethodAndBadParams(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	_, rerr, err := h.Call(ctxT(t), "no/such", map[string]any{})
	if err != nil || rerr == nil || rerr.Code != -32601 {
		t.Fatalf("unknown method: %v %v", rerr, err)
	}
	_, rerr, err = h.Call(ctxT(t), "agent/request", map[string]any{"sessionId": 3})
	if err != nil || rerr == nil || rerr.Code != -32602 {
		t.Fatalf("bad params: %v %v", rerr, err)
	}
	_, rerr, err = h.CallRaw(ctxT(t), "llm/payload", []byte(`{"requestId":"r","sessionId":"s","turn":1,"step":1,"provider":"p","model":"m","purpose":"chat","payload":[1]}`))
	if err != nil || rerr == nil || rerr.Code != -32001 || dataCode(rerr) != "COPILOT_CONTINUATION_INVALID_PAYLOAD" {
		t.Fatalf("payload not an object: %v %v, want INVALID_PAYLOAD as the DSH Copilot filter answers", rerr, err)
	}
}

func TestUnsupportedProtocolVersion(t *testing.T) {
	h := startHost(t, host.Config{})
	_, rerr, err := h.Call(ctxT(t), "initialize", map[string]any{"protocolVersion": "2", "host": map[string]string{"name": "x", "version": "1"}, "capabilities": host.AllCapabilities()})
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Code      string   `json:"code"`
		Supported []string `json:"supported"`
	}
	if rerr == nil || rerr.Code != -32602 || json.Unmarshal(rerr.Data, &data) != nil || data.Code != "PROTOCOL_VERSION_UNSUPPORTED" || len(data.Supported) != 1 {
		t.Fatalf("got %v", rerr)
	}
}

func TestOversizedFrameIsSkippedWithoutHoldingIt(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 300 MiB")
	}
	skipUnderRace(t, "the peak RSS of an oversized frame")
	const limit = 32 << 20
	const frame = 300 << 20
	h := initialized(t, host.Config{MaxFrameBytes: limit}, host.AllCapabilities())
	before := currentRSS(h) // a race-built plugin starts several times larger
	sampler := h.SampleRSS(5 * time.Millisecond)
	if err := h.SendHugeLine(frame, host.JSONFiller("session/event")); err != nil {
		t.Fatal(err)
	}
	m, err := h.NextOrphan(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if m.Error == nil || m.Error.Code != -32600 || dataCode(m.Error) != "FRAME_TOO_LARGE" {
		t.Fatalf("got %s", m.Raw)
	}
	if _, rerr, err := h.Call(ctxT(t), "remote/invoke", map[string]any{"namespace": "continuity", "method": "notices", "args": map[string]any{"agentId": "s1"}}); err != nil || rerr != nil {
		t.Fatalf("after the oversized frame: %v %v", err, rerr)
	}
	st := sampler.Stop()
	peak, err := h.PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	peak = max(peak, st.MaxHWM, st.MaxRSS)
	t.Logf("peak RSS %d MiB (%d MiB before) for a %d MiB frame (limit %d MiB, %d samples)", peak>>20, before>>20, frame>>20, limit>>20, st.Samples)
	if peak-before > frame/3 {
		t.Fatalf("peak RSS grew by %d MiB, not far below the %d MiB frame", (peak-before)>>20, frame>>20)
	}
}

func TestShutdownAndEOFExitZero(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	if err := h.Shutdown(ctxT(t)); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if code, err := h.WaitContext(ctxT(t)); err != nil || code != 0 {
		t.Fatalf("after shutdown: exit %d, %v", code, err)
	}

	h2 := initialized(t, host.Config{}, host.AllCapabilities())
	start := time.Now()
	if err := h2.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	code, err := h2.WaitContext(ctxT(t))
	took := time.Since(start)
	if err != nil || code != 0 {
		t.Fatalf("after EOF: exit %d, %v", code, err)
	}
	if took > server.ExitWithin {
		t.Fatalf("exited %v after EOF, promised within %v", took, server.ExitWithin)
	}
}

// A host bridge may forward session events right behind its initialize
// request: they are held while initialize runs and applied in order, so a
// header sent that way is known to the next agent/request (no agents/get).
func TestNotificationsDuringInitializeAreApplied(t *testing.T) {
	h := startHost(t, host.Config{})
	h.SetCapabilities(host.AllCapabilities())
	release := h.Hold("settings/describe") // keep initialize running
	p, err := h.Send("initialize", map[string]any{"protocolVersion": "1", "host": map[string]string{"name": "t", "version": "1"},
		"capabilities": host.AllCapabilities()})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.WaitHeld(ctxT(t), "settings/describe", 1); err != nil {
		t.Fatal(err)
	}
	born := time.Now().Add(time.Hour).UnixMilli()
	if _, err := h.SessionEvent("s1", host.Ev("session/created", map[string]any{}), &hostapi.SessionHeader{CreatedAt: &born}); err != nil {
		t.Fatal(err)
	}
	release()
	if _, rerr, err := p.Wait(ctxT(t)); err != nil || rerr != nil {
		t.Fatalf("initialize: %v %v", err, rerr)
	}
	res := admit(t, h, "s1", 1, 1, "r1")
	if res.Admission == nil || !res.Admission.Enabled || res.Admission.Source != "default" {
		t.Fatalf("the header sent during initialize was lost: %+v", res.Admission)
	}
	if n := h.CallCount("agents/get"); n != 0 {
		t.Fatalf("agents/get was called %d times: the held header was not applied", n)
	}
}

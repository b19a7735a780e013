package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/fixtures/host"
)

// repliesTo returns the plugin's answers to the requests with the raw
// ids, in whatever order they come, skipping everything else it sends.
func repliesTo(t *testing.T, h *host.Host, rawIDs ...string) map[string]host.Message {
	t.Helper()
	got := map[string]host.Message{}
	for len(got) < len(rawIDs) {
		m, err := h.NextMessage(ctxT(t))
		if err != nil {
			t.Fatalf("waiting for the answers to %v (have %d): %v", rawIDs, len(got), err)
		}
		for _, id := range rawIDs {
			if m.Kind == host.KindResponse && string(m.ID) == id {
				got[id] = m
			}
		}
	}
	return got
}

// replyTo returns the plugin's answer to the request with the raw id.
func replyTo(t *testing.T, h *host.Host, rawID string) host.Message {
	t.Helper()
	return repliesTo(t, h, rawID)[rawID]
}

// noticesLine is a remote/invoke request with the raw id, padded with
// spaces before its last brace to total bytes.
func noticesLine(rawID string, total int) string {
	line := `{"jsonrpc":"2.0","id":` + rawID + `,"method":"remote/invoke","params":{"namespace":"continuity","method":"notices","args":{"agentId":"s1"}}`
	return line + strings.Repeat(" ", max(0, total-len(line)-1)) + "}"
}

// Issue 18 #15: the \r of a \r\n ending is not part of the frame, so a
// frame of exactly --max-frame-bytes is accepted with either ending.
func TestCRLFEndingDoesNotCountTowardTheLimit(t *testing.T) {
	const limit = 4096
	h := initialized(t, host.Config{MaxFrameBytes: limit}, host.AllCapabilities())
	if err := h.SendLine([]byte(noticesLine(`"crlf-at-limit"`, limit) + "\r")); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := h.NextMessage(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind == host.KindOrphan || m.Kind == host.KindResponse && m.Error != nil {
			t.Fatalf("a frame of exactly the limit with a CRLF ending: %s", m.Raw)
		}
		if m.Kind == host.KindResponse && string(m.ID) == `"crlf-at-limit"` {
			break
		}
	}
	if err := h.SendLine([]byte(noticesLine(`"crlf-over"`, limit+1) + "\r")); err != nil {
		t.Fatal(err)
	}
	m, err := h.NextOrphan(ctxT(t))
	if err != nil || m.Error == nil || dataCode(m.Error) != "FRAME_TOO_LARGE" {
		t.Fatalf("one byte over the limit: %v %s", err, m.Raw)
	}
}

// Issue 18 #16 and #9: ids are any integer or string, answered with the
// id exactly as sent; ids with a fraction or exponent are refused.
// Strings that differ only by a lone surrogate are distinct requests that
// may run at once, not one id.
func TestRequestIDsAreExact(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	for _, id := range []string{`-7`, `-0`, `123456789012345678901234567890`, `"a\ud800"`, `"a\udbff"`, `"a\ufffd"`, `"\u0061b"`} {
		if err := h.SendLine([]byte(noticesLine(id, 0))); err != nil {
			t.Fatal(err)
		}
		if m := replyTo(t, h, id); m.Error != nil || !strings.Contains(string(m.Result), `"ok":true`) {
			t.Fatalf("id %s: %s", id, m.Raw)
		}
	}
	for _, id := range []string{`1.5`, `2e3`} {
		if err := h.SendLine([]byte(noticesLine(id, 0))); err != nil {
			t.Fatal(err)
		}
		if m := replyTo(t, h, id); m.Error == nil || m.Error.Code != -32600 {
			t.Fatalf("id %s: %s", id, m.Raw)
		}
	}

	// Two requests whose ids differ by a lone surrogate, both running (the
	// host holds the agents/get they wait on): neither is refused as a
	// duplicate of the other, and each is answered under its own id.
	release := h.Hold("agents/get")
	ids := []string{`"q\ud800"`, `"q\udbff"`}
	for i, id := range ids {
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"agent/request","params":{"sessionId":"held-` + string(rune('a'+i)) +
			`","turn":1,"step":1,"requestId":"rq-` + string(rune('a'+i)) + `","config":{"provider":"github-copilot-preview","model":"gpt-5.4"}}}`
		if err := h.SendLine([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.WaitHeld(ctxT(t), "agents/get", 2); err != nil {
		t.Fatalf("both requests should be running: %v", err)
	}
	release()
	for id, m := range repliesTo(t, h, ids...) {
		if m.Error != nil {
			t.Fatalf("id %s: %s", id, m.Raw)
		}
	}
}

// Issue 18 #17: an error about params that could not be decoded names the
// method and the reason, never the client's value.
func TestDecodeErrorsQuoteNoClientValue(t *testing.T) {
	h := initialized(t, host.Config{}, host.AllCapabilities())
	digits := strings.Repeat("9", 100_000)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":"d1","method":"agent/request","params":{"sessionId":"s","turn":` + digits + `,"step":1,"requestId":"r","config":{"provider":"p","model":"m"}}}`,
		`{"jsonrpc":"2.0","id":"d2","method":"llm/payload","params":{"requestId":"r","sessionId":"s","turn":` + digits + `,"step":1,"provider":"p","model":"m","purpose":"chat","payload":{}}}`,
	} {
		if err := h.SendLine([]byte(line)); err != nil {
			t.Fatal(err)
		}
		id := line[strings.Index(line, `"id":`)+5 : strings.Index(line, `,"method"`)]
		m := replyTo(t, h, id)
		if m.Error == nil {
			t.Fatalf("%s: accepted: %.200s", id, m.Raw)
		}
		if strings.Contains(string(m.Raw), "99999") || len(m.Raw) > 400 {
			t.Fatalf("%s: the error quotes the client's value (%d bytes): %.300s", id, len(m.Raw), m.Raw)
		}
	}
	time.Sleep(50 * time.Millisecond) // the log lines of the refusals
	if strings.Contains(string(h.StderrTail()), "99999") {
		t.Fatal("the log quotes the client's value")
	}
}

// currentRSS is the plugin's resident memory now (the most seen in 50 ms).
func currentRSS(h *host.Host) int64 {
	s := h.SampleRSS(5 * time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	return s.Stop().MaxRSS
}

// Issue 18 #8: a line over the frame limit is refused, and the memory it
// took to find that out does not stay resident (in the frame pool or
// anywhere else) once it is refused.
func TestOverLimitLineDoesNotStayResident(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 100 MiB")
	}
	skipUnderRace(t, "the RSS left after a refused line")
	const limit = 64 << 20
	const line = 100 << 20
	h := initialized(t, host.Config{MaxFrameBytes: limit}, host.AllCapabilities())
	before := currentRSS(h)
	if err := h.SendHugeLine(line, host.JSONFiller("session/event")); err != nil {
		t.Fatal(err)
	}
	m, err := h.NextOrphan(ctxT(t))
	if err != nil || m.Error == nil || dataCode(m.Error) != "FRAME_TOO_LARGE" {
		t.Fatalf("got %v %s", err, m.Raw)
	}
	if err := h.SendLine([]byte(noticesLine(`"after"`, 0))); err != nil {
		t.Fatal(err)
	}
	if m := replyTo(t, h, `"after"`); m.Error != nil {
		t.Fatalf("after the refused line: %s", m.Raw)
	}
	after := currentRSS(h)
	peak, err := h.PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("RSS %d MiB before, peak %d MiB, %d MiB after a refused %d MiB line (limit %d MiB)", before>>20, peak>>20, after>>20, line>>20, limit>>20)
	if after > before+16<<20 {
		t.Fatalf("%d MiB stay resident after the refusal (%d MiB before)", after>>20, before>>20)
	}
}

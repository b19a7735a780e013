package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// pausedAt finds the bytes in flight the plugin reported when it stopped
// reading ("reading paused" on stderr), or -1.
func pausedAt(stderr []byte) int64 {
	m := regexp.MustCompile(`"msg":"reading paused[^"]*".*?"heldBytes":(\d+)`).FindSubmatch(stderr)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// TestStalledReaderBoundsMemory: a host that stops reading the plugin's
// stdout while it keeps sending filtered 1 MiB payloads. The plugin must
// stop reading stdin once its replies hold the in-flight limit, instead of
// reading (and holding a reply for) every payload: the host's writes block,
// the memory the stall costs the plugin (its peak over what it held before)
// stays within 3× of what it reports in flight, and once the host reads
// again every payload is answered, filtered. (The growth, not the whole
// peak, is compared: a race-built plugin starts several times larger.)
func TestStalledReaderBoundsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 300 MiB of payloads")
	}
	skipUnderRace(t, "the peak RSS behind a stalled reader")
	const n = 300
	h := initialized(t, host.Config{}, host.AllCapabilities())
	body := payloadgen.Generate(payloadgen.ReasoningHeavy(1<<20, 64)).Body
	params := make([][]byte, n)
	for i := range n {
		sid := fmt.Sprintf("bp-%d", i)
		freshSession(t, h, sid)
		if res := admit(t, h, sid, 1, 1, "r-"+sid); res.Admission == nil || !res.Admission.Enabled {
			t.Fatalf("admission %d = %+v", i, res.Admission)
		}
		head, err := json.Marshal(host.PayloadParams{RequestID: "r-" + sid, SessionID: sid, Turn: 1, Step: 1,
			Provider: "github-copilot-preview", Model: "gpt-5.4", Purpose: "chat"})
		if err != nil {
			t.Fatal(err)
		}
		params[i] = append(append(append(head[:len(head)-1:len(head)-1], `,"payload":`...), body...), '}')
	}
	before := currentRSS(h)

	resume := h.PauseReading()
	defer resume()
	sampler := h.SampleRSS(5 * time.Millisecond)
	sent := make(chan *host.Pending, n)
	go func() {
		defer close(sent)
		for _, p := range params {
			pending, err := h.SendRawParams("llm/payload", p)
			if err != nil {
				return
			}
			sent <- pending
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	held := pausedAt(h.StderrTail())
	for ; held < 0; held = pausedAt(h.StderrTail()) {
		if time.Now().After(deadline) {
			t.Fatalf("the plugin never stopped reading; %d of %d payloads sent", len(sent), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // let anything still running settle
	stalled := len(sent)
	st := sampler.Stop()
	peak := max(st.MaxHWM, st.MaxRSS)
	t.Logf("stalled: %d of %d payloads written, %d MiB in flight, peak RSS %d MiB (%d MiB before)",
		stalled, n, held>>20, peak>>20, before>>20)
	if stalled >= n {
		t.Fatalf("the host wrote all %d payloads although its reader was stalled", n)
	}
	if peak-before > 3*held {
		t.Fatalf("peak RSS grew by %d MiB, more than 3× the %d MiB in flight", (peak-before)>>20, held>>20)
	}

	resume()
	got := 0
	for p := range sent {
		raw, rerr, err := p.Wait(ctxT(t))
		if err != nil || rerr != nil {
			t.Fatalf("payload %d: %v %v", got, err, rerr)
		}
		if !bytes.Contains(raw, []byte(`"outcome":"filtered"`)) {
			t.Fatalf("payload %d: %.200s", got, raw)
		}
		got++
	}
	if got != n {
		t.Fatalf("%d of %d payloads answered", got, n)
	}
}

package bench

import (
	"os/exec"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

// TestRunSmall runs the whole bench on tiny payloads with one sample per
// case: every case yields a row on every kind, the growth tables and the
// event stream are filled, and every bar is computed. Numbers are not
// checked.
func TestRunSmall(t *testing.T) {
	cfg := Config{Binary: testbin.Path(t), Sizes: []int{32 << 10}, Runs: 1, LatencySamples: 1,
		CountSize: 64 << 10, Counts: []int{2, 8}, SessionTurns: 3, SessionSize: 256 << 10, EventSteps: 2,
		ProxySizes: []int{64 << 10}, ProxyStreamBytes: 256 << 10, ProxySessions: 2, ProxySessionBytes: 32 << 10, ProxySessionRounds: 1}
	rep, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cases := append([]string{}, inProcessCases...)
	cases = append(cases, CaseWire)
	if _, err := exec.LookPath("cat"); err == nil {
		cases = append(cases, CasePipe)
	}
	if _, err := exec.LookPath("node"); err == nil {
		cases = append(cases, CaseNodeFull, CaseNodeFilter)
	}
	for _, kind := range Kinds {
		for _, c := range cases {
			r := rep.find(GroupSize, c, kind, 32<<10)
			if r == nil || r.Ops < 1 || r.P50Ns <= 0 || r.MBps <= 0 {
				t.Errorf("%s on %s: %+v", c, kind, r)
			}
		}
	}
	for _, n := range []string{"reasoning/2", "reasoning/8"} {
		if rep.find(GroupReasoning, CaseFilter, n, 64<<10) == nil || rep.find(GroupReasoning, CaseSHA256, n, 64<<10) == nil {
			t.Errorf("no reasoning-count rows for %s", n)
		}
	}
	if len(rep.Session) != 3 || rep.Session[2].PayloadBytes <= rep.Session[0].PayloadBytes || rep.Session[2].WireNs <= 0 {
		t.Errorf("session rows: %+v", rep.Session)
	}
	if es := rep.Events; es == nil || es.Steps != 2 || es.P50Ns <= 0 || es.BaselineP50Ns <= 0 || es.AdmitP50Ns <= 0 || es.ToolResultBytes != 17<<20 {
		t.Errorf("event stream: %+v", es)
	}
	if len(rep.Proxy) != 2 || rep.ProxyStream == nil || rep.ProxyStream.Ratio <= 0 || rep.Proxy[0].Front != "" || rep.Proxy[1].Front != "gemini" {
		t.Errorf("proxy comparison %+v %+v", rep.Proxy, rep.ProxyStream)
	}
	for _, row := range rep.Proxy {
		if row.ProxyTTFBNs <= 0 || row.FilterNs <= 0 || row.AllocPerByte <= 0 {
			t.Errorf("proxy row %+v", row)
		}
	}
	if c := rep.ProxyConcurrent; c == nil || c.Samples != 2 || c.ProxyP99Ns <= 0 || c.FilterP99 <= 0 || c.HeldPeak < 2*(32<<10) {
		t.Errorf("sessions at once: %+v", c)
	}
	if len(rep.Bars) != 18 {
		t.Errorf("%d bars, want 18 (11, the proxy's 5: Responses and Gemini TTFB and memory, SSE, and 2 of sessions at once)", len(rep.Bars))
	}
	for _, b := range rep.Bars {
		if b.Runs != 1 || b.WorstRun != 1 || b.Passed != map[bool]int{true: 1}[b.Pass] || b.Unit == "" {
			t.Errorf("bar %s of one run: runs %d, passed %d, worst run %d, unit %q", b.Name, b.Runs, b.Passed, b.WorstRun, b.Unit)
		}
	}
}

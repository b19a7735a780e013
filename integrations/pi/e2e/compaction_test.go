package e2e_test

import (
	"encoding/json"
	"testing"
)

// TestRPCCompactionIsABracket: pi's own /compact (RPC "compact") reaches
// the plugin as the protocol's compaction bracket — compaction/start,
// pi's summary as the compact-checkpoint user/message, compaction/end —
// so the plugin settles it as completed (the /continuity view shows the
// compaction notice) and the events are kept in pi's session file in
// that order.
func TestRPCCompactionIsABracket(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			// Keep almost nothing recent, so two short turns have something to summarize.
			r.write("settings.json", map[string]any{"defaultProvider": "github-copilot", "defaultModel": "gpt-5.3-codex",
				"compaction": map[string]any{"keepRecentTokens": 1}})
			for _, prompt := range []string{"list the files", "and the tests"} {
				if res := r.print("acct-A", prompt); res.err != nil {
					t.Fatalf("%q: %v\n%s", prompt, res.err, res.stderr)
				}
			}
			p := r.rpc("acct-A")
			p.send(map[string]any{"type": "compact"})
			res := p.await("the compact response", func(m map[string]any) bool {
				return str(m, "type") == "response" && str(m, "command") == "compact"
			})
			if ok, _ := res["success"].(bool); !ok {
				t.Fatalf("pi could not compact: %v", res)
			}
			p.prompt("/continuity")
			p.ui("notify", "The summary replaced the earlier history.")

			var s *piSession
			for _, x := range r.sessions() {
				s = x
			}
			start := s.seqOf(t, "compaction/start", 0)
			check := s.seqOf(t, "user/message", start)
			end := s.seqOf(t, "compaction/end", check)
			var startData, checkData, endData struct {
				CompactionID string          `json:"compactionId"`
				Turn         json.RawMessage `json:"turn"`
				Error        json.RawMessage `json:"error"`
				Source       struct {
					Kind         string `json:"kind"`
					CompactionID string `json:"compactionId"`
				} `json:"source"`
			}
			for _, x := range []struct {
				seq int
				v   any
			}{{start, &startData}, {check, &checkData}, {end, &endData}} {
				if err := json.Unmarshal(s.events[x.seq].Data, x.v); err != nil {
					t.Fatal(err)
				}
			}
			if startData.CompactionID == "" || string(startData.Turn) != "null" {
				t.Errorf("compaction/start between turns wants an id and turn null: %s", s.events[start].Data)
			}
			if checkData.Source.Kind != "compact-checkpoint" || checkData.Source.CompactionID != startData.CompactionID {
				t.Errorf("the summary is not the bracket's checkpoint: %s", s.events[check].Data)
			}
			// It replaces the events of what pi summarized, not those of the
			// entries pi keeps (the latest prompt's, with 1 recent token kept).
			var op struct {
				Op       string `json:"op"`
				StartSeq int    `json:"startSeq"`
				EndSeq   int    `json:"endSeq"`
			}
			if err := json.Unmarshal(s.events[check].SurfaceOp, &op); err != nil || op.Op != "replace" || op.EndSeq < 0 || op.EndSeq >= start {
				t.Errorf("the checkpoint's surfaceOp does not replace a range before the compaction: %s", s.events[check].SurfaceOp)
			}
			if endData.CompactionID != startData.CompactionID || len(endData.Error) != 0 {
				t.Errorf("compaction/end does not close the bracket without error: %s", s.events[end].Data)
			}
		})
	}
}

package boundary

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/dshevent"
	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/hostapi"
)

// BenchmarkDecide measures one boundary over a session of 1,000 events
// (observe the last turn, classify, build and verify the query, persist).
func BenchmarkDecide(b *testing.B) {
	ctx := context.Background()
	db := openDB(b, b.TempDir())
	s, err := Open(ctx, db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	events := []hostapi.Event{created(1), user(2, parseTask)}
	for seq := int64(3); seq < 1000; seq += 2 {
		events = append(events,
			testRun(seq, fmt.Sprintf("pkg/p%d", seq%17), seq%3 != 0, "summary", 2000),
			assistant(seq+1, strings.Repeat("narration ", 30), ann{"next_action", "pkg/p1", "Run the suite"}))
	}
	for _, e := range events {
		s.Observe(sid, e)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Decide(ctx, sid, TurnEnd); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyHugeToolResult measures what applying one 17 MiB format-4
// tool/result costs the read loop (Observe: classify the event and fold it
// into the session's view), against the reading this package did before
// (referenceHostToolResult: gjson.ParseBytes copies the whole data, then
// the result's text is joined in full to take its first line). Both run in
// the same process on the same bytes; the ratio is reported as
// "x-faster" on the scan case.
//
//	go test -run NONE -bench ApplyHugeToolResult -benchmem ./boundary
func BenchmarkApplyHugeToolResult(b *testing.B) {
	out := "ok\n" + strings.Repeat("output line with a \"quote\" and a tab\t\n", (17<<20)/40)
	data, err := json.Marshal(dsh.Format4.ToolResult(1, 1, "call_big", out, false))
	if err != nil {
		b.Fatal(err)
	}
	var refNs float64
	b.Run("reference-gjson", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if id, _ := referenceHostToolResult(data); id != "call_big" {
				b.Fatal(id)
			}
		}
		refNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		seq := int64(0)
		s := &sessionState{}
		for b.Loop() {
			seq++
			s.apply(hostapi.Event{Type: EventToolResult, Seq: seq, Data: data})
			s.view, s.pending = s.view[:0], s.pending[:0]
		}
		if len(s.calls) != 0 || s.unreadable != 0 {
			b.Fatalf("state %+v", s)
		}
		if ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N); refNs > 0 && ns > 0 {
			b.ReportMetric(refNs/ns, "x-faster")
		}
	})
}

// referenceHostToolResult is the reading parseHostToolResult replaced,
// kept here only as the benchmark's baseline.
func referenceHostToolResult(data []byte) (callID, excerpt string) {
	d := gjson.ParseBytes(data)
	msg := d.Get("message")
	c := msg.Get("content")
	var sb strings.Builder
	c.ForEach(func(_, block gjson.Result) bool {
		if block.Get("type").String() == "text" {
			sb.WriteString(block.Get("text").String())
		}
		return true
	})
	_ = dshevent.ResultFailed(data)
	return dshevent.ResultCallID(data), firstLine(sb.String())
}

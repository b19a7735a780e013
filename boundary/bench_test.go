package boundary

import (
	"context"
	"fmt"
	"strings"
	"testing"

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

package bench

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// designSection6 is docs/design.md §6 with its whitespace folded, so a
// phrase wrapped over two lines is still found.
func designSection6(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "## 6. Quality bars")
	if start < 0 {
		t.Fatal("docs/design.md has no section 6, Quality bars")
	}
	s = s[start:]
	if end := strings.Index(s[3:], "\n## "); end >= 0 {
		s = s[:end+3]
	}
	return strings.Join(strings.Fields(s), " ")
}

// TestBarsAgreeWithTheDesign: every limit the bench holds a bar to is
// written in docs/design.md §6 as the bar states it, so raising a bar in
// one place and not the other fails here.
func TestBarsAgreeWithTheDesign(t *testing.T) {
	doc := designSection6(t)
	for _, phrase := range []string{
		fmt.Sprintf("4,096 reasoning items, validated as it is filtered, runs at ≥ %.1f × single-core SHA-256", filterVsSHA256Min),
		fmt.Sprintf("allocating ≤ %.1f × the payload", filterAllocMax),
		fmt.Sprintf("≥ %.0f × faster than decoding, filtering and re-encoding it with `encoding/json`", filterVsJSONMin),
		fmt.Sprintf("costs ≤ %.1f × the filter alone", wireVsFilterMax),
		fmt.Sprintf("1 MiB payloads of every kind (reasoning, ordinary, typical) stay under %.0f ms at p99", ms(wireP99Max)),
		fmt.Sprintf("keeps the payload p99 under %.0f ms", ms(eventP99Max)),
		fmt.Sprintf("answered in under %.0f ms at p50", ms(eventAdmitP50Max)),
		fmt.Sprintf("at most the filter's own time plus %.0f ms at 1 and 16 MiB", ms(proxyTTFBSlack)),
		fmt.Sprintf("streaming throughput ≥ %.0f %% of a plain reverse proxy", 100*proxyStreamMin),
		fmt.Sprintf("memory per request in flight ≤ %.0f × its body", proxyAllocMax),
		"passes in every run: `continuity bench --repeat N`",
	} {
		if !strings.Contains(doc, phrase) {
			t.Errorf("docs/design.md §6 does not say %q", phrase)
		}
	}
}

// TestBarsHoldTheirLimits: each bar computed from a report carries the
// limit of its constant, judges in its direction, and says so in Want.
func TestBarsHoldTheirLimits(t *testing.T) {
	rep := fakeReport()
	rep.Proxy = []ProxyRow{{Size: 1 << 20, Runs: 3, PlainTTFBNs: 2e6, ProxyTTFBNs: 3e6, FilterNs: 1e6, AddedNs: 1e6, AllocPerByte: 1.1}}
	rep.ProxyStream = &ProxyStream{Bytes: 16 << 20, Runs: 3, PlainMBps: 1000, ProxyMBps: 940, Ratio: 0.94}
	rep.Bars = append(bars(rep, []int{1 << 20, 64 << 20}), proxyBars(rep)...)
	want := map[string]struct {
		limit  float64
		higher bool
		pass   bool
	}{
		"filter vs SHA-256, reasoning 64 MiB":                 {filterVsSHA256Min, true, true},
		"filter allocations, reasoning 64 MiB":                {filterAllocMax, false, true},
		"filter vs encoding/json, ordinary 64 MiB":            {filterVsJSONMin, true, true},
		"wire round trip vs filter alone, reasoning 64 MiB":   {wireVsFilterMax, false, true},
		"wire round trip vs filter alone, ordinary 64 MiB":    {wireVsFilterMax, false, false},
		"wire round trip vs filter alone, typical 64 MiB":     {wireVsFilterMax, false, true},
		"wire p99, reasoning 1 MiB":                           {ms(wireP99Max), false, true},
		"wire p99, ordinary 1 MiB":                            {ms(wireP99Max), false, false},
		"wire p99, typical 1 MiB":                             {ms(wireP99Max), false, false},
		"payload p99 behind 17 MiB tool/result events, 1 MiB": {ms(eventP99Max), false, true},
		"agent/request p50 right after a 17 MiB tool/result":  {ms(eventAdmitP50Max), false, false},
		"proxy added time to first byte, 1 MiB":               {ms(1e6 + int64(proxyTTFBSlack)), false, true},
		"proxy memory per request, 1 MiB":                     {proxyAllocMax, false, true},
		"proxy SSE throughput, 16 MiB":                        {proxyStreamMin, true, false},
	}
	if len(rep.Bars) != len(want) {
		t.Errorf("%d bars, want %d", len(rep.Bars), len(want))
	}
	for _, b := range rep.Bars {
		w, ok := want[b.Name]
		if !ok {
			t.Errorf("unexpected bar %q", b.Name)
			continue
		}
		if b.Limit != w.limit || b.HigherIsBetter != w.higher || b.Pass != w.pass || b.Unit == "" {
			t.Errorf("%s: limit %v higher %v pass %v unit %q, want %v %v %v", b.Name, b.Limit, b.HigherIsBetter, b.Pass, b.Unit, w.limit, w.higher, w.pass)
		}
		if !strings.Contains(b.Want, "1 ms") && !strings.Contains(b.Want, strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", w.limit), "0"), ".")) {
			t.Errorf("%s: want %q does not state the limit %v", b.Name, b.Want, w.limit)
		}
	}
}

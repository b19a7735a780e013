package bench

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fakeReport is a report with hand-set numbers for every bar: the filter
// at 1.08× SHA-256 and 14× encoding/json, the wire at 1.2× the filter's
// time on reasoning, 4× on ordinary and 1.25× on typical, 1 MiB p99s of
// 2.9, 7 and exactly 3 ms (which fails "< 3 ms"), and the event stream's
// payload p99 at 4 ms and its agent/request p50 at 9 ms.
func fakeReport() *Report {
	rep := &Report{Machine: Machine{GoVersion: "go", CPUs: 2, Node: "absent: test"}}
	big, mib := 64<<20, 1<<20
	add := func(cas, kind string, size int, mbps float64, p99 int64) {
		rep.Rows = append(rep.Rows, Row{Group: GroupSize, Case: cas, Kind: kind, Size: size, Bytes: size + 100,
			Items: 10, Reasoning: 4, Ops: 5, BestNs: 9e5, P50Ns: 1e6, P99Ns: p99, MBps: mbps, AllocPerByte: 0.1})
	}
	for _, kind := range Kinds {
		add(CaseFilter, kind, big, 1400, 2e6)
		add(CaseSHA256, kind, big, 1300, 2e6)
		add(CaseJSON, kind, big, 100, 2e6)
	}
	add(CaseWire, KindReasoning, big, 1400/1.2, 2e6)
	add(CaseWire, KindOrdinary, big, 1400/4.0, 2e6)
	add(CaseWire, KindTypical, big, 1400/1.25, 2e6)
	add(CaseWire, KindReasoning, mib, 300, 2.9e6)
	add(CaseWire, KindOrdinary, mib, 300, 7e6)
	add(CaseWire, KindTypical, mib, 300, 3e6)
	rep.Rows = append(rep.Rows, Row{Group: GroupReasoning, Case: CaseFilter, Kind: "reasoning/16", Size: mib, MBps: 900})
	rep.Session = []TurnRow{{Turn: 1, HistoryBytes: 10, PayloadBytes: 20, FilterNs: 30, FilterNsPerByte: 1}}
	rep.Notes = []string{"a note | with a pipe"}
	rep.Events = &EventStream{Steps: 50, ToolResultBytes: 17 << 20, PayloadBytes: mib, P50Ns: 2e6, P99Ns: 4e6,
		BaselineP50Ns: 2e6, BaselineP99Ns: 3e6, AdmitP50Ns: 9e6, AdmitBaselineP50Ns: 2e5, VsBaseline: 4.0 / 3}
	rep.ratios()
	rep.Bars = bars(rep, []int{mib, big})
	return rep
}

func TestBarsFollowTheRatios(t *testing.T) {
	want := map[string]bool{
		"filter vs SHA-256, reasoning 64 MiB":                 true,
		"filter allocations, reasoning 64 MiB":                true,
		"filter vs encoding/json, ordinary 64 MiB":            true,
		"wire round trip vs filter alone, reasoning 64 MiB":   true,
		"wire round trip vs filter alone, ordinary 64 MiB":    false,
		"wire round trip vs filter alone, typical 64 MiB":     true,
		"wire p99, reasoning 1 MiB":                           true,
		"wire p99, ordinary 1 MiB":                            false,
		"wire p99, typical 1 MiB":                             false,
		"payload p99 behind 17 MiB tool/result events, 1 MiB": true,
		"agent/request p50 right after a 17 MiB tool/result":  false,
	}
	rep := fakeReport()
	got := map[string]bool{}
	for _, b := range rep.Bars {
		got[b.Name] = b.Pass
		if b.Note != "" {
			t.Errorf("%s: unexpected note %q at the bar's own size", b.Name, b.Note)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bars = %v\nwant %v", got, want)
	}
}

func TestBarsSayWhenMeasuredAtAnotherSize(t *testing.T) {
	rep := fakeReport()
	for _, b := range bars(rep, []int{1 << 20}) {
		if strings.HasPrefix(b.Name, "wire p99") || strings.HasPrefix(b.Name, "payload p99 behind") || strings.HasPrefix(b.Name, "agent/request") {
			continue
		}
		if b.Pass || !strings.Contains(b.Note, "defined at 64 MiB") {
			t.Errorf("%s: pass %v, note %q", b.Name, b.Pass, b.Note)
		}
	}
}

func TestWriteJSONRoundTrips(t *testing.T) {
	rep := fakeReport()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Rows, rep.Rows) || !reflect.DeepEqual(back.Bars, rep.Bars) || !reflect.DeepEqual(back.Session, rep.Session) {
		t.Fatal("the JSON does not read back as the report")
	}
}

// TestWriteMarkdownTables checks that every table row has as many cells
// as its header and that every bar is listed with its verdict.
func TestWriteMarkdownTables(t *testing.T) {
	rep := fakeReport()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, rep); err != nil {
		t.Fatal(err)
	}
	cells := -1
	rows := 0
	for _, line := range strings.Split(buf.String(), "\n") {
		if !strings.HasPrefix(line, "|") {
			cells = -1
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") - 1
		if cells < 0 {
			cells = n
		} else if n != cells {
			t.Fatalf("row with %d cells under a header of %d: %s", n, cells, line)
		}
		rows++
	}
	// headers and separators of three tables, plus every row and turn
	if want := 3*2 + len(rep.Rows) + len(rep.Session); rows != want {
		t.Fatalf("%d table lines, want %d", rows, want)
	}
	for _, b := range rep.Bars {
		if !strings.Contains(buf.String(), "- "+barLine(b)) {
			t.Fatalf("bar %q is missing", b.Name)
		}
	}
}

func TestWriteTextListsBars(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, fakeReport()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "PASS  "); n != 7 {
		t.Fatalf("%d PASS lines, want 7", n)
	}
	if n := strings.Count(buf.String(), "FAIL  "); n != 4 {
		t.Fatalf("%d FAIL lines, want 4", n)
	}
}

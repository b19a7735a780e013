package uicontract_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// BenchmarkValidateStrict measures Validate's strict reading against the
// encoding/json decoding it replaced, on the same schema and document in
// the same run, and reports the time and allocation ratios (strict/json):
// the duplicate, number and surrogate checks must not cost more than the
// lenient decoder did.
func BenchmarkValidateStrict(b *testing.B) {
	text := strings.Repeat("a handoff line with some words in it. ", 400)
	var sources []string
	for i := range 64 {
		sources = append(sources, `{"kind":"session_events","sessionId":"s-`+strings.Repeat("x", i%8)+`","fromEventId":"1","toEventId":"2","relevance":"`+text[:200]+`"}`)
	}
	doc := []byte(`{"reason":"topic_change","title":"t","description":"` + text + `","handoff":{"purpose":"` + text + `","currentRequest":"` + text + `"},"sources":[` + strings.Join(sources, ",") + `]}`)
	const name = "tool/continue_session.args"
	s, err := uicontract.Schema(name)
	if err != nil {
		b.Fatal(err)
	}
	lenient := func() error {
		d := json.NewDecoder(bytes.NewReader(doc))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return err
		}
		return s.Validate(v)
	}
	if err := uicontract.Validate(name, doc); err != nil {
		b.Fatal(err)
	}
	if err := lenient(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	var strictTime, jsonTime time.Duration
	var strictAllocs, jsonAllocs float64
	for b.Loop() {
		t0 := time.Now()
		strictAllocs += testing.AllocsPerRun(1, func() { _ = uicontract.Validate(name, doc) })
		t1 := time.Now()
		jsonAllocs += testing.AllocsPerRun(1, func() { _ = lenient() })
		t2 := time.Now()
		strictTime += t1.Sub(t0)
		jsonTime += t2.Sub(t1)
	}
	b.ReportMetric(float64(strictTime)/float64(jsonTime), "time-strict/json")
	b.ReportMetric(strictAllocs/jsonAllocs, "allocs-strict/json")
}

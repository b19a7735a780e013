package dshevent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/dshevent"
	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/jsonscan"
)

// ReadToolResult agrees with ResultCallID and ResultFailed on every
// tool/result of the recorded streams in both formats, and its excerpt is
// the first line of the result's text.
func TestReadToolResultAgreesOnRecordedStreams(t *testing.T) {
	n := 0
	for _, format := range []dsh.Format{dsh.Format0, dsh.Format4} {
		for _, file := range dsh.Files() {
			st, err := dsh.Load(file, format, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, fr := range st.Frames {
				if fr.Event.Get("type").Str != "tool/result" {
					continue
				}
				data := []byte(fr.Event.Get("data").Raw)
				r, ok := dshevent.ReadToolResult(data, jsonscan.Spans{}, 200)
				if !ok || r.CallID != dshevent.ResultCallID(data) || r.Failed != dshevent.ResultFailed(data) ||
					r.MessageBytes != len(fr.Event.Get("data.message").Raw) {
					t.Fatalf("format %d %s seq %d: %+v ok=%v", format, file, fr.Event.Get("seq").Int(), r, ok)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no tool/result in the recorded streams")
	}
}

func TestReadToolResultBothFormats(t *testing.T) {
	output := "\n  first line \u00e9\tx\nsecond line\n" + strings.Repeat("o", 1<<20)
	for _, f := range []dsh.Format{dsh.Format0, dsh.Format4} {
		for _, failed := range []bool{false, true} {
			data, _ := json.Marshal(f.ToolResult(1, 1, "call_7", output, failed))
			r, ok := dshevent.ReadToolResult(data, jsonscan.Spans{}, 200)
			if !ok || r.CallID != "call_7" || r.Failed != failed || r.Excerpt != "first line \u00e9\tx" || r.MessageBytes < 1<<20 {
				t.Fatalf("format %d failed=%v: %+v ok=%v", f, failed, r, ok)
			}
			// With the spans of the frame data was cut from (the output
			// stepped over in O(1)), the same reading.
			frame := append(append([]byte(`{"jsonrpc":"2.0","params":{"event":{"data":`), data...), "}}}"...)
			var v jsonscan.Validator
			v.Write(frame)
			if _, err := v.End(nil); err != nil {
				t.Fatal(err)
			}
			long := v.Long(frame)
			at := len(`{"jsonrpc":"2.0","params":{"event":{"data":`)
			if rs, ok := dshevent.ReadToolResult(frame[at:at+len(data)], long, 200); long.Len() == 0 || !ok || rs != r {
				t.Fatalf("format %d failed=%v: with %d spans %+v ok=%v, without %+v", f, failed, long.Len(), rs, ok, r)
			}
		}
	}
	r, ok := dshevent.ReadToolResult([]byte(`{"message":{"content":"boom"},"error":{"name":"ToolError","code":"E_TOOL"},"callId":"c9"}`), jsonscan.Spans{}, 200)
	if !ok || !r.Failed || r.ErrorCode != "E_TOOL" || r.CallID != "c9" || r.Excerpt != "boom" {
		t.Fatalf("%+v ok=%v", r, ok)
	}
	for _, bad := range []string{`{"callId":"c1","output":"x"}`, `{"message":"text"}`, `[1]`} {
		if _, ok := dshevent.ReadToolResult([]byte(bad), jsonscan.Spans{}, 200); ok {
			t.Fatalf("%s reads as a DSH tool/result", bad)
		}
	}
}

func TestExcerptBoundsAndDecodes(t *testing.T) {
	for _, c := range []struct {
		json  string
		limit int
		want  string
	}{
		{`"plain"`, 10, "plain"},
		{`"\n\n  two\nthree"`, 10, "two"},
		{`"caf\u00e9 ok"`, 10, "café ok"},
		{`"abcdefghij"`, 4, "abcd"},
		{`"éééé"`, 3, "é"}, // the cut never splits a character
		{`"\ud83d\ude00 smile"`, 32, "😀 smile"},
		{`42`, 10, ""},
	} {
		if got := dshevent.Excerpt([]byte(c.json), c.limit); got != c.want {
			t.Errorf("Excerpt(%s, %d) = %q, want %q", c.json, c.limit, got, c.want)
		}
	}
}

func TestObjectMembers(t *testing.T) {
	o, ok := dshevent.ReadObject([]byte(`{"a":"x\"y","n":12,"t":true,"a2":{"k":"v"},"arr":[1,{"b":2},"s"],"n":13}`))
	if !ok {
		t.Fatal("object does not read")
	}
	if s, ok := o.Str("a"); !ok || s != `x"y` {
		t.Fatalf("a = %q %v", s, ok)
	}
	if n := string(o.Raw("n")); n != "13" {
		t.Fatalf("n = %s (the last member of a name wins)", n)
	}
	if !o.True("t") || o.True("a") {
		t.Fatal("True misreads")
	}
	if a := string(o.Raw("arr")); a != `[1,{"b":2},"s"]` {
		t.Fatalf("arr = %s", a)
	}
	if _, ok := dshevent.ReadObject([]byte(`"s"`)); ok {
		t.Fatal("a string reads as an object")
	}
}

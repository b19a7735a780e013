package dshevent_test

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/dshevent"
	"github.com/continuity-dev/continuity/fixtures/dsh"
)

// Every reading, on every event of DSH's recorded streams in both
// formats: the readers agree with what the streams say elsewhere (a
// result's call id is its tool/call's, a tool-call block is followed by
// its tool/call, the checkpoint replaces the summary's shadowed range).
func TestReadingsOfRecordedStreams(t *testing.T) {
	for _, format := range []dsh.Format{dsh.Format0, dsh.Format4} {
		counts := map[string]int{}
		for _, file := range dsh.Files() {
			st, err := dsh.Load(file, format, 1)
			if err != nil {
				t.Fatal(err)
			}
			calls := map[int64]string{} // tool/call seq → callId
			announced, called := map[string]bool{}, map[string]bool{}
			for _, fr := range st.Frames {
				if fr.Session == "" {
					continue
				}
				data := []byte(fr.Event.Get("data").Raw)
				seq := fr.Event.Get("seq").Int()
				where := func() string { return file + " " + fr.Event.Get("type").Str + " " + fr.Event.Get("seq").Raw }
				switch fr.Event.Get("type").Str {
				case "tool/call":
					c, ok := dshevent.ToolCall(data)
					args, valid := dshevent.Arguments(data)
					if !ok || !valid || !gjson.Valid(args) || !announced[c.ID] {
						t.Fatalf("format %d %s: %+v %v (announced %v)", format, where(), c, valid, announced[c.ID])
					}
					calls[seq], called[c.ID] = c.ID, true
					counts["tool/call"]++
				case "tool/result":
					// A live stream's sourceEventSeqs name the tool/call; a
					// storage log's count live seqs, not lines.
					got := dshevent.ResultCallID(data)
					if want, live := calls[fr.Event.Get("sourceEventSeqs.0").Int()]; live && got != want || !called[got] {
						t.Fatalf("format %d %s: call %q, want %q", format, where(), got, want)
					}
					if dshevent.ResultFailed(data) != (gjson.GetBytes(data, "message.content.0.isError").Bool() ||
						gjson.GetBytes(data, "message.isError").Bool() || gjson.GetBytes(data, "error").Exists()) {
						t.Fatalf("format %d %s: failed = %v", format, where(), dshevent.ResultFailed(data))
					}
					counts["tool/result"]++
				case "assistant/message":
					for _, c := range dshevent.AssistantCalls(data) {
						announced[c.ID] = true
					}
					if gjson.GetBytes(data, "usage").Exists() {
						if _, ok := dshevent.AssistantUsage(data); !ok {
							t.Fatalf("format %d %s: usage does not read", format, where())
						}
						counts["usage"]++
					}
				case "user/message":
					kind := gjson.GetBytes(data, "source.kind").Str
					if dshevent.IsPersonsPrompt(data) != (kind == "user") {
						t.Fatalf("format %d %s: person's prompt = %v for source %s", format, where(), dshevent.IsPersonsPrompt(data), kind)
					}
					if kind == "user" && dshevent.Text(data) == "" {
						t.Fatalf("format %d %s: a prompt without text", format, where())
					}
					if cid := dshevent.CheckpointOf(data); cid != "" {
						r, ok := dshevent.ReplaceRange([]byte(fr.Event.Get("surfaceOp").Raw))
						if !ok || r != (dshevent.Range{Start: 4, End: 4}) || !r.Contains(4) || r.Contains(5) {
							t.Fatalf("format %d %s: replaces %+v %v", format, where(), r, ok)
						}
						counts["checkpoint"]++
					}
					counts[kind]++
				case "request/context":
					w, ok := dshevent.ContextWindow(data)
					if ok != gjson.GetBytes(data, "contextWindow").Exists() {
						t.Fatalf("format %d %s: window %d %v", format, where(), w, ok)
					}
					if ok {
						counts["window"]++
					}
				case "turn/end":
					if n, present, ok := dshevent.Turn(data); !ok || !present || n < 1 || dshevent.TurnEndKind(data) == "" {
						t.Fatalf("format %d %s: turn %d %v %v kind %q", format, where(), n, present, ok, dshevent.TurnEndKind(data))
					}
					counts["turn/end"]++
				}
			}
		}
		for _, k := range []string{"tool/call", "tool/result", "usage", "user", "plugin", "checkpoint", "window", "turn/end"} {
			if counts[k] == 0 {
				t.Errorf("format %d: no %s read in the recorded streams", format, k)
			}
		}
	}
}

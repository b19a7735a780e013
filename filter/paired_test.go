package filter

import (
	"strings"
	"testing"
)

func TestPairedIDs(t *testing.T) {
	old := reasoningItem("rs_old", "gAAAAABold")
	old2 := reasoningItem("rs_old2", "gAAAAABold2")
	fresh := reasoningItem("rs_new", "gAAAAABnew")
	fc := `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{}"}`
	fcNoID := `{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"}`
	tests := []struct {
		name     string
		items    []string
		want     []string
		stripped int
	}{
		{"tool call after omitted", []string{old, fc}, []string{fcNoID}, 1},
		{"id first", []string{old, `{"id":"msg_1", "type":"message","content":[]}`}, []string{`{"type":"message","content":[]}`}, 1},
		{"id last", []string{old, `{"type":"message" , "id" : "msg_1" }`}, []string{`{"type":"message" }`}, 1},
		{"id only", []string{old, `{ "id":"msg_1" }`}, []string{`{  }`}, 1},
		{"two ids", []string{old, `{"id":"a","role":"x","id":"b"}`}, []string{`{"role":"x"}`}, 2},
		{"escaped id name", []string{old, `{"\u0069d":"a","role":"x"}`}, []string{`{"role":"x"}`}, 1},
		{"nested id kept", []string{old, `{"type":"message","content":[{"id":"n"}],"id":"msg_1"}`},
			[]string{`{"type":"message","content":[{"id":"n"}]}`}, 1},
		{"after run of omitted", []string{old, old2, fc}, []string{fcNoID}, 1},
		{"after kept new reasoning", []string{old, fresh, fc}, []string{fresh, fc}, 0},
		{"before omitted", []string{fc, old}, []string{fc}, 0},
		{"second after omitted", []string{old, `{"role":"user","content":"x"}`, fc}, []string{`{"role":"user","content":"x"}`, fc}, 0},
		{"item reference", []string{old, `{"type":"item_reference","id":"rs_9"}`}, []string{`{"type":"item_reference","id":"rs_9"}`}, 0},
		{"compaction", []string{old, `{"type":"compaction","id":"cmp_1","encrypted_content":"x"}`},
			[]string{`{"type":"compaction","id":"cmp_1","encrypted_content":"x"}`}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := NewTurn(Options{StripPairedIDs: true})
			// The baseline holds the old reasoning only.
			mustApply(t, turn, body(old, old2))
			res := mustApply(t, turn, body(tt.items...))
			want := string(body(tt.want...))
			if string(res.Output) != want {
				t.Fatalf("\n got %s\nwant %s", res.Output, want)
			}
			if res.Omitted.StrippedIDs != tt.stripped {
				t.Fatalf("stripped %d, want %d", res.Omitted.StrippedIDs, tt.stripped)
			}
			if !strings.Contains(string(res.Output), `"call_id"`) && strings.Contains(strings.Join(tt.items, ""), `"call_id"`) {
				t.Fatal("call_id was removed")
			}
		})
	}
}

func TestPairedIDsOff(t *testing.T) {
	old := reasoningItem("rs_old", "gAAAAABold")
	fc := `{"type":"function_call","id":"fc_1","call_id":"call_1"}`
	res := mustApply(t, NewTurn(Options{}), body(old, fc))
	if string(res.Output) != string(body(fc)) || res.Omitted.StrippedIDs != 0 {
		t.Fatalf("got %s", res.Output)
	}
}

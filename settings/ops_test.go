package settings

import (
	"encoding/json"
	"testing"

	"github.com/continuity-dev/continuity/hostapi"
)

func TestApplyOps(t *testing.T) {
	set := func(v string, path ...string) hostapi.Op {
		return hostapi.Op{Op: "set", Path: path, Value: json.RawMessage(v)}
	}
	unset := func(path ...string) hostapi.Op { return hostapi.Op{Op: "unset", Path: path} }
	tests := []struct {
		name  string
		value string
		ops   []hostapi.Op
		want  string
		fails bool
	}{
		{name: "set on empty", value: ``, ops: []hostapi.Op{set(`[1]`, "k")}, want: `{"k":[1]}`},
		{name: "set on null", value: `null`, ops: []hostapi.Op{set(`true`, "k")}, want: `{"k":true}`},
		{name: "set keeps siblings", value: `{"a":{"x":1.50},"k":0}`, ops: []hostapi.Op{set(`2`, "k")}, want: `{"a":{"x":1.50},"k":2}`},
		{name: "set creates parents", value: `{}`, ops: []hostapi.Op{set(`1`, "a", "b", "c")}, want: `{"a":{"b":{"c":1}}}`},
		{name: "set through scalar", value: `{"a":3}`, ops: []hostapi.Op{set(`1`, "a", "b")}, fails: true},
		{name: "unset", value: `{"a":1,"b":2}`, ops: []hostapi.Op{unset("a")}, want: `{"b":2}`},
		{name: "unset nested", value: `{"a":{"b":1,"c":2}}`, ops: []hostapi.Op{unset("a", "b")}, want: `{"a":{"c":2}}`},
		{name: "unset missing", value: `{"a":1}`, ops: []hostapi.Op{unset("x", "y")}, want: `{"a":1}`},
		{name: "unset on null", value: `null`, ops: []hostapi.Op{unset("x")}, want: `{}`},
		{name: "ops in order", value: `{}`, ops: []hostapi.Op{set(`1`, "a"), set(`2`, "b"), unset("a")}, want: `{"b":2}`},
		{name: "empty path", value: `{}`, ops: []hostapi.Op{set(`1`)}, fails: true},
		{name: "unknown op", value: `{}`, ops: []hostapi.Op{{Op: "merge", Path: []string{"a"}}}, fails: true},
		{name: "set invalid JSON", value: `{}`, ops: []hostapi.Op{set(`{`, "a")}, fails: true},
		{name: "unset with value", value: `{}`, ops: []hostapi.Op{{Op: "unset", Path: []string{"a"}, Value: json.RawMessage(`1`)}}, fails: true},
		{name: "root not object", value: `[1]`, ops: []hostapi.Op{set(`1`, "a")}, fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyOps(json.RawMessage(tt.value), tt.ops)
			if tt.fails {
				if err == nil {
					t.Fatalf("ApplyOps = %s, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ApplyOps: %v", err)
			}
			if string(got) != tt.want {
				t.Fatalf("ApplyOps = %s, want %s", got, tt.want)
			}
		})
	}
}

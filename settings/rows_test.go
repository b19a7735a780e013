package settings

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestValidSessionID(t *testing.T) {
	tests := []struct {
		name string
		id   string
		ok   bool
	}{
		{"plain", "sess_0123", true},
		{"unicode letters", "séance-日本", true},
		{"256 characters", strings.Repeat("é", 256), true},
		{"empty", "", false},
		{"257 characters", strings.Repeat("a", 257), false},
		{"newline (Cc)", "a\nb", false},
		{"NUL (Cc)", "a\x00b", false},
		{"DEL (Cc)", "a\x7fb", false},
		{"zero-width joiner (Cf)", "a\u200db", false},
		{"BOM (Cf)", "\ufeffa", false},
		{"bidi override (Cf)", "a\u202eb", false},
		{"invalid UTF-8", "a\xffb", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidSessionID(tt.id)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidSessionID: err = %v, want ok = %v", err, tt.ok)
			}
			if err != nil && tt.id != "" && strings.Contains(err.Error(), tt.id) {
				t.Errorf("error repeats the id: %v", err)
			}
		})
	}
}

func TestParseRows(t *testing.T) {
	tests := []struct {
		name  string
		raw   string // "" means the key is absent
		want  []Row
		fails bool
	}{
		{name: "absent", raw: "", want: []Row{}},
		{name: "empty", raw: `[]`, want: []Row{}},
		{name: "explicit and legacy", raw: `[{"sessionId":"a","version":1,"consentedAt":5,"enabled":false},{"sessionId":"b","version":1,"consentedAt":0}]`,
			want: []Row{{SessionID: "a", Version: 1, ConsentedAt: 5, Enabled: new(false)}, {SessionID: "b", Version: 1}}},
		{name: "null", raw: `null`, fails: true},
		{name: "object", raw: `{}`, fails: true},
		{name: "row not object", raw: `[1]`, fails: true},
		{name: "unknown member", raw: `[{"sessionId":"a","version":1,"consentedAt":5,"account":"x"}]`, fails: true},
		{name: "missing consentedAt", raw: `[{"sessionId":"a","version":1}]`, fails: true},
		{name: "missing sessionId", raw: `[{"version":1,"consentedAt":5}]`, fails: true},
		{name: "version 2", raw: `[{"sessionId":"a","version":2,"consentedAt":5}]`, fails: true},
		{name: "version 1.0", raw: `[{"sessionId":"a","version":1.0,"consentedAt":5}]`, fails: true},
		{name: "consentedAt string", raw: `[{"sessionId":"a","version":1,"consentedAt":"5"}]`, fails: true},
		{name: "consentedAt fraction", raw: `[{"sessionId":"a","version":1,"consentedAt":5.5}]`, fails: true},
		{name: "consentedAt exponent", raw: `[{"sessionId":"a","version":1,"consentedAt":5e3}]`, fails: true},
		{name: "consentedAt negative", raw: `[{"sessionId":"a","version":1,"consentedAt":-1}]`, fails: true},
		{name: "consentedAt past 2^53", raw: `[{"sessionId":"a","version":1,"consentedAt":9007199254740992}]`, fails: true},
		{name: "enabled null", raw: `[{"sessionId":"a","version":1,"consentedAt":5,"enabled":null}]`, fails: true},
		{name: "enabled string", raw: `[{"sessionId":"a","version":1,"consentedAt":5,"enabled":"true"}]`, fails: true},
		{name: "sessionId number", raw: `[{"sessionId":7,"version":1,"consentedAt":5}]`, fails: true},
		{name: "sessionId control char", raw: `[{"sessionId":"a\u0007","version":1,"consentedAt":5}]`, fails: true},
		{name: "sessionId empty", raw: `[{"sessionId":"","version":1,"consentedAt":5}]`, fails: true},
		{name: "duplicate sessionId", raw: `[{"sessionId":"a","version":1,"consentedAt":5},{"sessionId":"a","version":1,"consentedAt":6}]`, fails: true},
		{name: "2049 rows", raw: manyRows(MaxRows + 1), fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw json.RawMessage
			if tt.raw != "" {
				raw = json.RawMessage(tt.raw)
			}
			got, err := parseRows(raw)
			if tt.fails {
				if err == nil {
					t.Fatalf("parseRows accepted %s", tt.name)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseRows: %v", err)
			}
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(tt.want)
			if string(a) != string(b) {
				t.Fatalf("parseRows = %s, want %s", a, b)
			}
		})
	}
	if rows, err := parseRows(json.RawMessage(manyRows(MaxRows))); err != nil || len(rows) != MaxRows {
		t.Fatalf("2048 rows: %d rows, err %v", len(rows), err)
	}
}

func TestParseHistory(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		n     int
		fails bool
	}{
		{name: "increasing", raw: `[{"enabled":true,"changedAt":1},{"enabled":false,"changedAt":2}]`, n: 2},
		{name: "equal changedAt", raw: `[{"enabled":true,"changedAt":2},{"enabled":false,"changedAt":2}]`, fails: true},
		{name: "decreasing", raw: `[{"enabled":true,"changedAt":3},{"enabled":false,"changedAt":2}]`, fails: true},
		{name: "missing enabled", raw: `[{"changedAt":3}]`, fails: true},
		{name: "enabled number", raw: `[{"enabled":1,"changedAt":3}]`, fails: true},
		{name: "extra member", raw: `[{"enabled":true,"changedAt":3,"sessionId":"a"}]`, fails: true},
		{name: "changedAt fraction", raw: `[{"enabled":true,"changedAt":3.25}]`, fails: true},
		{name: "2049 rows", raw: manyHistory(MaxHistory + 1), fails: true},
		{name: "2048 rows", raw: manyHistory(MaxHistory), n: MaxHistory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseHistory(json.RawMessage(tt.raw))
			if tt.fails != (err != nil) {
				t.Fatalf("parseHistory: err = %v, want failure %v", err, tt.fails)
			}
			if !tt.fails && len(got) != tt.n {
				t.Fatalf("parseHistory: %d rows, want %d", len(got), tt.n)
			}
		})
	}
}

func manyRows(n int) string {
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = Row{SessionID: fmt.Sprintf("s%d", i), Version: 1, ConsentedAt: int64(i)}
	}
	b, _ := json.Marshal(rows)
	return string(b)
}

func manyHistory(n int) string {
	h := make([]DefaultRow, n)
	for i := range h {
		h[i] = DefaultRow{Enabled: i%2 == 0, ChangedAt: int64(i + 1)}
	}
	b, _ := json.Marshal(h)
	return string(b)
}

package payloadgen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestGenerate(t *testing.T) {
	tests := map[string]struct {
		spec      Spec
		reasoning int
	}{
		"reasoning heavy": {ReasoningHeavy(4<<20, 64), 64},
		"ordinary":        {Ordinary(4 << 20), 0},
		"typical":         {Typical(1 << 20), 10},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			p := Generate(tt.spec)
			if len(p.Body) < tt.spec.Size {
				t.Fatalf("size %d < %d", len(p.Body), tt.spec.Size)
			}
			var v struct {
				Input []struct {
					Type   string `json:"type"`
					Cipher string `json:"encrypted_content"`
				} `json:"input"`
			}
			if err := json.Unmarshal(p.Body, &v); err != nil {
				t.Fatalf("not valid JSON: %v", err)
			}
			var ciphers []string
			for _, it := range v.Input {
				if it.Type == "reasoning" {
					ciphers = append(ciphers, it.Cipher)
				}
			}
			if len(ciphers) != tt.reasoning || len(p.Ciphers) != tt.reasoning {
				t.Fatalf("%d reasoning items, %d spans, want %d", len(ciphers), len(p.Ciphers), tt.reasoning)
			}
			for k, c := range p.Ciphers {
				if got := string(p.Body[c[0]:c[1]]); got != ciphers[k] || !strings.HasPrefix(got, "gAAAAAB") {
					t.Fatalf("span %d does not hold its ciphertext", k)
				}
			}
			if again := Generate(tt.spec); !bytes.Equal(again.Body, p.Body) {
				t.Fatal("generation is not deterministic")
			}
		})
	}
}

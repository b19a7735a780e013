package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzSelect: whatever the payload, Scan either names why it refuses it or
// Select's output is valid JSON meaning exactly what an oracle over the
// decoded payload says: the same document with the same signatures, parts
// and contents removed. The decision keeps by position, which both sides
// agree on whatever escapes the signatures hold. The payload is also
// followed as it would arrive, which must scan it exactly as Scan does.
func FuzzSelect(f *testing.F) {
	smallSteps(f)
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"a","thought":true,"thoughtSignature":"s1"},{"functionCall":{"name":"x"},"thoughtSignature":"s2"}]},{"role":"user","parts":[{"functionResponse":{"name":"x"}}]}]}`))
	f.Add([]byte(`{"contents":[{"parts":[{"thoughtSignature":"s","text":"t"}]},{"role":"model","parts":[ {"thoughtSignature" : "s3" } ]},{"role":"user","parts":[{"text":"x"}]}],"tools":[]}`))
	f.Add(render(genConversation(newRand(7)), false))
	f.Fuzz(func(t *testing.T, in []byte) {
		d := sameScan(t, in, newRand(uint64(len(in))), 1+len(in)%17)
		if d == nil {
			return
		}
		keep := func(c Candidate) bool { return (c.Content*7+c.Part)%3 == 0 }
		res, err := d.Select(context.Background(), keep)
		if err != nil {
			return
		}
		out := join(res)
		if !json.Valid(out) {
			t.Fatalf("output is not JSON:\n in  %q\n out %q", in, out)
		}
		if !res.Changed() && !bytes.Equal(out, in) {
			t.Fatalf("unchanged output differs")
		}
		want, om := oracle(t, in)
		var got any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("output means something else:\n in   %q\n out  %q\n want %#v", in, out, want)
		}
		if om != res.Omitted {
			t.Fatalf("Omitted = %+v, oracle %+v", res.Omitted, om)
		}
	})
}

// oracle applies the package's rules to the decoded payload, deciding as
// FuzzSelect's keep does.
func oracle(t *testing.T, in []byte) (any, Omitted) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("Scan accepted what encoding/json refuses: %v", err)
	}
	contents, _ := doc["contents"].([]any)
	current := 0
	for k, c := range contents {
		m := c.(map[string]any)
		role, has := m["role"]
		parts, _ := m["parts"].([]any)
		text, response := false, false
		for _, p := range parts {
			pm := p.(map[string]any)
			_, resp := pm["functionResponse"]
			s, _ := pm["text"].(string)
			text, response = text || s != "", response || resp
		}
		if (!has || role == "user") && text && !response {
			current = k
		}
	}
	var om Omitted
	var kept []any
	for k, c := range contents {
		m := c.(map[string]any)
		parts, isArr := m["parts"].([]any)
		if !isArr {
			kept = append(kept, m)
			continue
		}
		var left []any
		for j, p := range parts {
			pm := p.(map[string]any)
			sig, has := pm["thoughtSignature"].(string)
			if !has || sig == Sentinel || (k*7+j)%3 == 0 {
				left = append(left, pm)
				continue
			}
			om.Signatures++
			_, call := pm["functionCall"]
			switch {
			case pm["thought"] == true:
				om.Parts++
				continue
			case k >= current && call:
				pm["thoughtSignature"] = Sentinel
				om.Sentinels++
			default:
				delete(pm, "thoughtSignature")
			}
			left = append(left, pm)
		}
		if len(parts) > 0 && len(left) == 0 {
			om.Contents++
			continue
		}
		if left == nil {
			left = []any{}
		}
		m["parts"] = left
		kept = append(kept, m)
	}
	if _, has := doc["contents"]; has {
		if kept == nil {
			kept = []any{}
		}
		doc["contents"] = kept
	}
	return doc, om
}

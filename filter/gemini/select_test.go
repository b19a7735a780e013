package gemini

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// TestScanNamesBadPayloads: what the filter cannot read exactly is refused
// by name, never passed on half-read.
func TestScanNamesBadPayloads(t *testing.T) {
	for _, c := range []struct{ name, in, code, says string }{
		{"not json", `{"contents":[`, diag.InvalidPayload, "not valid JSON"},
		{"not an object", `[1]`, diag.InvalidPayload, "not a JSON object"},
		{"two contents", `{"contents":[],"contents":[]}`, diag.InvalidPayload, "more than one contents"},
		{"contents not array", `{"contents":{}}`, diag.InvalidPayload, "contents is not an array"},
		{"content not object", `{"contents":[1]}`, diag.InvalidPayload, "content 0 is not an object"},
		{"two roles", `{"contents":[{"role":"user","role":"model"}]}`, diag.InvalidPayload, "repeats its role"},
		{"two parts", `{"contents":[{"parts":[],"parts":[]}]}`, diag.InvalidPayload, "repeats its parts"},
		{"two signatures", `{"contents":[{"parts":[{"thoughtSignature":"a","thought\u0053ignature":"b"}]}]}`, diag.InvalidPayload, "repeats its thoughtSignature"},
		{"signature not string", `{"contents":[{"parts":[{"thoughtSignature":1}]}]}`, diag.InvalidPayload, "not a string"},
		{"bad utf-8", "{\"contents\":[{\"parts\":[{\"text\":\"\xff\"}]}]}", diag.InvalidPayload, "not valid JSON"},
		{"too many contents", `{"contents":[` + strings.Repeat(`{},`, MaxContents) + `{}]}`, diag.InvalidPayload, "more than 65536 contents"},
		{"too many signatures", `{"contents":[{"parts":[` + strings.Repeat(`{"thoughtSignature":"s"},`, MaxSignatures) + `{"thoughtSignature":"s"}]}]}`, diag.ItemLimit, "more than 16384 thought signatures"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Scan([]byte(c.in))
			if !diag.Has(err, c.code) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err = %v, want %s saying %q", err, c.code, c.says)
			}
		})
	}
}

// TestSelectWorkBound: signatures past MaxSignatureBytes in all stop the
// filter by name, and a cancelled call stops.
func TestSelectWorkBound(t *testing.T) {
	big := strings.Repeat("A", MaxSignatureBytes/2+1)
	in := `{"contents":[{"role":"model","parts":[{"thoughtSignature":"` + big + `"},{"thoughtSignature":"` + big + `"}]}]}`
	d, err := Scan([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Select(context.Background(), func(Candidate) bool { return true }); !diag.Has(err, diag.ReasoningWorkLimit) {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, _ = Scan([]byte(`{"contents":[{"parts":[{"thoughtSignature":"s"}]}]}`))
	if _, err := d.Select(ctx, func(Candidate) bool { return true }); err != context.Canceled {
		t.Fatalf("err = %v", err)
	}
}

// TestSelectRules: the rules one case each, on gemini-cli's shapes.
func TestSelectRules(t *testing.T) {
	const hist = `{"contents":[{"role":"user","parts":[{"text":"<session_context>"},{"text":"list files"}]},` +
		`{"role":"model","parts":[{"text":"I will","thoughtSignature":"OLD1"},{"functionCall":{"name":"ls","args":{}},"thoughtSignature":"OLD2"}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"ls","response":{}}}]},` +
		`{"role":"model","parts":[{"text":"done"}]},` +
		`{"role":"user","parts":[{"text":"again"}]},` +
		`{"role":"model","parts":[{"text":"hm","thought":true,"thoughtSignature":"NEW0"},{"functionCall":{"name":"ls","args":{}},"thoughtSignature":"NEW1"}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"ls","response":{}}}]}]}`
	d, err := Scan([]byte(hist))
	if err != nil {
		t.Fatal(err)
	}
	if d.Current() != 4 || d.Steps() != 1 {
		t.Fatalf("current %d steps %d", d.Current(), d.Steps())
	}
	var seen []Candidate
	res, err := d.Select(context.Background(), func(c Candidate) bool { seen = append(seen, c); return false })
	if err != nil {
		t.Fatal(err)
	}
	want := `{"contents":[{"role":"user","parts":[{"text":"<session_context>"},{"text":"list files"}]},` +
		`{"role":"model","parts":[{"text":"I will"},{"functionCall":{"name":"ls","args":{}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"ls","response":{}}}]},` +
		`{"role":"model","parts":[{"text":"done"}]},` +
		`{"role":"user","parts":[{"text":"again"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"ls","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"ls","response":{}}}]}]}`
	if got := string(join(res)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if res.Omitted != (Omitted{Signatures: 4, Parts: 1, Sentinels: 1}) {
		t.Fatalf("omitted %+v", res.Omitted)
	}
	if len(seen) != 4 || seen[0].Current || !seen[2].Current || !seen[2].Thought || !seen[3].FunctionCall || seen[3].Part != 1 {
		t.Fatalf("candidates %+v", seen)
	}
	if seen[0].Fingerprint != Fingerprint([]byte("OLD1")) {
		t.Fatal("fingerprint is not of the decoded signature")
	}
}

// TestKeyStable: the key is the first user content's text, however it is
// serialised, and differs for another first prompt.
func TestKeyStable(t *testing.T) {
	key := func(in string) string {
		d, err := Scan([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		k, ok := d.Key()
		if !ok {
			t.Fatalf("no key for %s", in)
		}
		return k
	}
	a := key(`{"contents":[{"role":"user","parts":[{"text":"ctx"},{"text":"hi"}]}]}`)
	b := key(`{"contents": [ {"parts": [{"text": "ctx"}, {"inlineData":{}}, {"text": "h\u0069"}], "role": "user"},{"role":"model","parts":[{"text":"x"}]},{"role":"user","parts":[{"text":"more"}]}]}`)
	c := key(`{"contents":[{"role":"user","parts":[{"text":"ctxhi"}]}]}`)
	// gemini-cli's routing request: the same parts as two user contents.
	if r := key(`{"contents":[{"role":"user","parts":[{"text":"ctx"}]},{"role":"user","parts":[{"text":"hi"}]}]}`); r != a {
		t.Fatal("the routing request's key differs from the conversation's")
	}
	if a != b || a == c || !strings.HasPrefix(a, KeyPrefix) {
		t.Fatalf("a %s b %s c %s", a, b, c)
	}
	if _, err := hex.DecodeString(strings.TrimPrefix(a, KeyPrefix)); err != nil || len(a) != len(KeyPrefix)+32 {
		t.Fatalf("key %q", a)
	}
	d, _ := Scan([]byte(`{"contents":[{"role":"model","parts":[{"text":"x"}]}]}`))
	if _, ok := d.Key(); ok {
		t.Fatal("a key without a user content")
	}
}

// TestIssued: the signatures of SSE events and of a JSON array of
// responses, as Select fingerprints them; the sentinel is no one's.
func TestIssued(t *testing.T) {
	var got [][32]byte
	fn := func(fp [32]byte) { got = append(got, fp) }
	Issued([]byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"a"},{"functionCall":{"name":"x"},"thoughtSignature":"c2ln\/MQ=="}]}}]}`), fn)
	Issued([]byte(`[{"candidates":[{"content":{"parts":[{"thoughtSignature":"s2"}]}}]},{"candidates":[{"content":{"parts":[{"thoughtSignature":"`+Sentinel+`"}]}}]}]`), fn)
	Issued([]byte(`not json`), fn)
	if len(got) != 2 || got[0] != Fingerprint([]byte("c2ln/MQ==")) || got[1] != Fingerprint([]byte("s2")) {
		t.Fatalf("got %d fingerprints", len(got))
	}
	d, _ := Scan([]byte(`{"contents":[{"parts":[{"thoughtSignature":"c2ln\/MQ=="}]}]}`))
	var fp [32]byte
	_, _ = d.Select(context.Background(), func(c Candidate) bool { fp = c.Fingerprint; return true })
	if fp != got[0] {
		t.Fatal("Select and Issued fingerprint the same signature differently")
	}
}

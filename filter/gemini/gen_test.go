package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// genPart is one part of a generated conversation, with who issued its
// signature ("" for none, "A" for the account in use, "B" for another,
// "?" for an issuer nobody recorded, "S" for the sentinel).
type genPart struct {
	kind   string // text, thought, call, response
	issuer string
	text   string
}

type genContent struct {
	role  string
	parts []genPart
}

// genSig is the signature a generated part carries: it names its issuer,
// so the test's decision can read it back from the fingerprint.
func genSig(issuer string, c, p int) string {
	if issuer == "S" {
		return Sentinel
	}
	return fmt.Sprintf("sig-%s-%d-%d-%s", issuer, c, p, strings.Repeat("Q", c%5))
}

// genConversation makes a random conversation: user prompts, model turns
// of text, thought and function-call parts, and function-response steps.
func genConversation(r *rand.Rand) []genContent {
	var out []genContent
	for turn := 0; turn < 1+r.IntN(4); turn++ {
		out = append(out, genContent{role: "user", parts: []genPart{{kind: "text", text: fmt.Sprintf("prompt %d \"q\" ü", turn)}}})
		for step := 0; step < r.IntN(3)+1; step++ {
			var m genContent
			m.role = "model"
			for n := 0; n < 1+r.IntN(3); n++ {
				kind := []string{"text", "thought", "call", "call"}[r.IntN(4)]
				issuer := []string{"", "A", "B", "?", "S"}[r.IntN(5)]
				m.parts = append(m.parts, genPart{kind: kind, issuer: issuer, text: fmt.Sprintf("t%d", n)})
			}
			out = append(out, m)
			if r.IntN(2) == 0 {
				out = append(out, genContent{role: "user", parts: []genPart{{kind: "response", text: "ok"}}})
			}
		}
	}
	return out
}

// render writes the conversation as gemini-cli does (compact JSON), with
// the oracle's removals when apply is true: signatures of the current
// turn's account "A" and the sentinel stay; others go from their part, a
// thought part goes whole, a current-turn call gets the sentinel, and a
// content without parts left goes whole.
func render(conv []genContent, apply bool) []byte {
	current := 0
	for k, c := range conv {
		if c.role == "user" && c.parts[0].kind != "response" {
			current = k
		}
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var cs []string
	for k, c := range conv {
		var ps []string
		for j, p := range c.parts {
			sig := ""
			if p.issuer != "" {
				sig = genSig(p.issuer, k, j)
			}
			goes := apply && sig != "" && p.issuer != "A" && p.issuer != "S"
			if goes && p.kind == "thought" {
				continue
			}
			if goes {
				sig = ""
				if k >= current && p.kind == "call" {
					sig = Sentinel
				}
			}
			var body string
			switch p.kind {
			case "text":
				body = `"text":` + q(p.text)
			case "thought":
				body = `"text":` + q(p.text) + `,"thought":true`
			case "call":
				body = `"functionCall":{"name":"read","args":{"path":` + q(p.text) + `}}`
			case "response":
				body = `"functionResponse":{"name":"read","response":{"output":` + q(p.text) + `}}`
			}
			if sig != "" {
				// The signature first on calls, last elsewhere: both cuts.
				if p.kind == "call" {
					body = `"thoughtSignature":` + q(sig) + `,` + body
				} else {
					body += `,"thoughtSignature":` + q(sig)
				}
			}
			ps = append(ps, "{"+body+"}")
		}
		if len(ps) == 0 {
			continue
		}
		cs = append(cs, `{"role":`+q(c.role)+`,"parts":[`+strings.Join(ps, ",")+`]}`)
	}
	return []byte(`{"contents":[` + strings.Join(cs, ",") + `],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`)
}

// keepA keeps the signatures the generator issued to "A".
func keepA(sigs map[[32]byte]string) func(Candidate) bool {
	return func(c Candidate) bool { return sigs[c.Fingerprint] == "A" }
}

// issuersOf maps each generated signature's fingerprint to its issuer.
func issuersOf(conv []genContent) map[[32]byte]string {
	m := map[[32]byte]string{}
	for k, c := range conv {
		for j, p := range c.parts {
			if p.issuer != "" {
				m[Fingerprint([]byte(genSig(p.issuer, k, j)))] = p.issuer
			}
		}
	}
	return m
}

func join(r Result) []byte { return bytes.Join(r.Pieces, nil) }

// TestSelectGenerated: across generated conversations, the output is the
// input with exactly the signatures, parts and contents the rules remove,
// scanned whole or followed as it arrives (in steps small enough that
// contents are read again after failing on a prefix).
func TestSelectGenerated(t *testing.T) {
	smallSteps(t)
	r := rand.New(rand.NewPCG(24, 1))
	changed := 0
	for i := 0; i < 3000; i++ {
		conv := genConversation(r)
		in, want := render(conv, false), render(conv, true)
		if _, err := Scan(in); err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, in)
		}
		d := sameScan(t, in, r, 1+i%200)
		res, err := d.Select(context.Background(), keepA(issuersOf(conv)))
		if err != nil {
			t.Fatal(err)
		}
		if got := join(res); !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n in   %s\n got  %s\n want %s", i, in, got, want)
		}
		if res.Changed() != !bytes.Equal(in, want) {
			t.Fatalf("case %d: Changed() = %v", i, res.Changed())
		}
		if res.Changed() {
			changed++
		}
	}
	if changed < 1000 {
		t.Fatalf("only %d of 3000 generated conversations lost anything", changed)
	}
}

// TestSelectGeneratedIndented: the same conversations indented (other
// whitespace around every cut) still come out valid and meaning what the
// oracle says.
func TestSelectGeneratedIndented(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 2))
	for i := 0; i < 500; i++ {
		conv := genConversation(r)
		var in bytes.Buffer
		if err := json.Indent(&in, render(conv, false), "", "  "); err != nil {
			t.Fatal(err)
		}
		d, err := Scan(in.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		res, err := d.Select(context.Background(), keepA(issuersOf(conv)))
		if err != nil {
			t.Fatal(err)
		}
		var got, want bytes.Buffer
		if err := json.Compact(&got, join(res)); err != nil {
			t.Fatalf("case %d: output is not JSON: %v\n%s", i, err, join(res))
		}
		_ = json.Compact(&want, render(conv, true))
		if got.String() != want.String() {
			t.Fatalf("case %d:\n got  %s\n want %s", i, got.String(), want.String())
		}
	}
}

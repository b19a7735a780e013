package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/filter/gemini"
)

// geminiPart is a part of a generated conversation; issuer is "A" (the
// key of the request), "B" (another key, issued through the proxy), "?"
// (never seen), "S" (the sentinel) or "" (no signature).
type geminiPart struct{ kind, issuer, sig string }

// genGemini makes a random conversation with unique signatures.
func genGemini(r *rand.Rand, id int) [][]geminiPart {
	var conv [][]geminiPart
	for turn := 0; turn < 1+r.IntN(3); turn++ {
		conv = append(conv, []geminiPart{{kind: "prompt"}})
		for step := 0; step < 1+r.IntN(3); step++ {
			var m []geminiPart
			for n := 0; n < 1+r.IntN(3); n++ {
				p := geminiPart{kind: []string{"text", "thought", "call"}[r.IntN(3)], issuer: []string{"", "A", "B", "?", "S"}[r.IntN(5)]}
				p.sig = fmt.Sprintf("c2ln%d-%d-%d-%d%s", id, turn, step, n, p.issuer)
				if p.issuer == "S" {
					p.sig = gemini.Sentinel
				}
				m = append(m, p)
			}
			conv = append(conv, m)
			if r.IntN(2) == 0 {
				conv = append(conv, []geminiPart{{kind: "response"}})
			}
		}
	}
	return conv
}

// renderGemini writes conv as compact JSON, with the proxy's removals when
// filtered (the oracle: only A's signatures and the sentinel stay, a
// thought part goes whole, a current-turn call gets the sentinel). Every
// part starts with a "pad" member of pad bytes when pad is not 0.
func renderGemini(conv [][]geminiPart, filtered bool, pad int) string {
	padding := ""
	if pad > 0 {
		padding = `"pad":"` + strings.Repeat("p", pad) + `",`
	}
	current := 0
	for k, c := range conv {
		if c[0].kind == "prompt" {
			current = k
		}
	}
	var cs []string
	for k, c := range conv {
		var ps []string
		role := "model"
		for _, p := range c {
			sig := p.sig
			if p.issuer == "" {
				sig = ""
			}
			if filtered && sig != "" && p.issuer != "A" && p.issuer != "S" {
				if p.kind == "thought" {
					continue
				}
				sig = ""
				if k >= current && p.kind == "call" {
					sig = gemini.Sentinel
				}
			}
			var body string
			switch p.kind {
			case "prompt":
				role, body = "user", fmt.Sprintf(`"text":"prompt %d"`, k)
			case "response":
				role, body = "user", `"functionResponse":{"name":"f","response":{}}`
			case "text":
				body = `"text":"t"`
			case "thought":
				body = `"text":"th","thought":true`
			case "call":
				body = `"functionCall":{"name":"f","args":{}}`
			}
			if sig != "" {
				body += `,"thoughtSignature":"` + sig + `"`
			}
			ps = append(ps, "{"+padding+body+"}")
		}
		if len(ps) > 0 {
			cs = append(cs, `{"role":"`+role+`","parts":[`+strings.Join(ps, ",")+`]}`)
		}
	}
	return `{"contents":[` + strings.Join(cs, ",") + `]}`
}

// TestGeminiProxyBytes: across generated conversations, what the upstream
// receives from the proxy is the client's body with exactly the
// signatures, parts and contents the rules remove, every other byte as
// sent. Signatures of A and B are first issued through the proxy (the tap
// records them from the answers); "?" ones never were. Every other body
// goes without a declared length, so both reads are checked: the one the
// scan follows (Content-Length) and the one scanned after it (chunked).
// Each conversation is also sent padded past pipelineFrom with its length,
// which the proxy forwards while it arrives (geminiPipeline), and every
// fifth padded again without a length, read whole: both paths give the
// oracle's bytes.
func TestGeminiProxyBytes(t *testing.T) {
	got := make(chan seen, 1)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, s := range strings.Split(r.Header.Get("X-Issue"), ",") {
			if s != "" {
				fmt.Fprintf(w, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"x\",\"thoughtSignature\":%q}]}}]}\r\n\r\n", s)
			}
		}
	})
	_, srv := newTestProxy(t, up.URL, RuleProvenance)
	send := func(key, body, issue string, chunked bool) seen {
		t.Helper()
		var rd io.Reader = strings.NewReader(body)
		if chunked {
			rd = struct{ io.Reader }{rd} // no length the client could declare
		}
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse", rd)
		req.Header.Set("X-Goog-Api-Key", key)
		req.Header.Set("X-Issue", issue)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return <-got
	}
	r := rand.New(rand.NewPCG(24, 3))
	changed := 0
	for i := 0; i < 150; i++ {
		conv := genGemini(r, i)
		issued := map[string][]string{}
		for _, c := range conv {
			for _, p := range c {
				if p.issuer == "A" || p.issuer == "B" {
					issued[p.issuer] = append(issued[p.issuer], p.sig)
				}
			}
		}
		for _, who := range []string{"A", "B"} {
			send("key-"+who, fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":"issue %d"}]}]}`, i), strings.Join(issued[who], ","), false)
		}
		in, want := renderGemini(conv, false, 0), renderGemini(conv, true, 0)
		if !json.Valid([]byte(in)) {
			t.Fatalf("generated %s", in)
		}
		if out := send("key-A", in, "", i%2 == 1).body; out != want {
			t.Fatalf("case %d:\n in   %s\n out  %s\n want %s", i, in, out, want)
		}
		parts := 0
		for _, c := range conv {
			parts += len(c)
		}
		pad := pipelineFrom/parts + 1
		in, want = renderGemini(conv, false, pad), renderGemini(conv, true, pad)
		for _, chunked := range []bool{false, true} {
			if chunked && i%5 != 0 {
				continue
			}
			sn := send("key-A", in, "", chunked)
			if out := sn.body; out != want {
				t.Fatalf("case %d, padded (chunked %v): %d bytes out, want %d; first difference at byte %d",
					i, chunked, len(out), len(want), firstDiff(out, want))
			}
			// Forwarded while it arrives, a body of declared length goes
			// on without one.
			if !chunked && sn.header.Get("Content-Length") != "" {
				t.Fatalf("case %d, padded: forwarded with a length, so not while it arrived", i)
			}
		}
		if in != want {
			changed++
		}
	}
	if changed < 50 {
		t.Fatalf("only %d of 150 conversations lost anything", changed)
	}
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

package proxy_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/geminisupplier"
)

// TestGeminiCLIAcrossKeys: the real gemini-cli from npm. An editor session
// over --acp with key A straight at the Gemini double; its second prompt
// fails, and the client rewrites its session file from memory, A's thought
// signatures in it. Then `gemini -p --resume latest` with key B through
// `continuity proxy` (default settings, the double as the named upstream
// "gemini", the client's base URL the proxy's /gemini), B again with a tool step, then A:
// every request through the proxy is accepted, the current turn's
// signature is kept on the tool step, and the same runs sent straight to
// the double are rejected with "Corrupted thought signature.".
func TestGeminiCLIAcrossKeys(t *testing.T) {
	bin := clientBin(t, "gemini")
	dbl := startGemini(t)
	px := startProxy(t, "", "", "--upstream", "gemini="+dbl.URL())
	home, project := geminiHome(t)

	ed := startACP(t, bin, project, geminiEnv(home, geminiKeyA, dbl.URL()))
	if msg := ed.prompt("what is in this project?"); msg != "" {
		t.Fatalf("first prompt failed: %s", msg)
	}
	if err := dbl.Fail(400, 1); err != nil {
		t.Fatal(err)
	}
	if msg := ed.prompt("and why?"); !strings.Contains(msg, "INVALID_ARGUMENT") {
		t.Fatalf("the injected failure was not reported: %q", msg)
	}
	ed.close()
	if !strings.Contains(sessionFiles(t, home), "thoughtSignature") {
		t.Fatal("gemini-cli did not rewrite its session file with A's signatures; the test proves nothing")
	}

	// run resumes the conversation with key, straight at the double on a
	// copy of home first (rejected when wantDirect), then through the proxy
	// (every request accepted); it returns the proxied requests.
	run := func(key, prompt string, wantDirectRejected bool, script ...geminisupplier.Call) []geminisupplier.Request {
		t.Helper()
		args := []string{"--skip-trust", "-p", prompt, "--resume", "latest", "-o", "text"}
		direct := copyTree(t, home)
		before := len(dbl.Requests())
		dbl.Script(script...)
		out, _ := tryClient(t, project, geminiEnv(direct, key, dbl.URL()), bin, args...)
		rejected := false
		for _, r := range dbl.Requests()[before:] {
			rejected = rejected || strings.HasPrefix(r.Problem, "corrupted")
		}
		if rejected != wantDirectRejected || wantDirectRejected && !strings.Contains(out, "Corrupted thought signature.") {
			t.Fatalf("%q straight at the double: rejected %v, want %v\n%s", prompt, rejected, wantDirectRejected, out)
		}
		before = len(dbl.Requests())
		dbl.Script(script...)
		out = runClient(t, project, geminiEnv(home, key, px.URL+"/gemini"), bin, args...)
		sent := dbl.Requests()[before:]
		for _, r := range sent {
			if r.Status != 200 {
				t.Fatalf("%q through the proxy: request %d answered %d (%s)\n%s\n%s", prompt, r.Seq, r.Status, r.Problem, out, px.Log())
			}
		}
		if !strings.Contains(out, "answer ") {
			t.Fatalf("%q through the proxy: no answer in the output\n%s", prompt, out)
		}
		return sent
	}
	run(geminiKeyB, "continue with the other key", true)
	steps := run(geminiKeyB, "list the files", true, geminisupplier.Call{Name: "list_directory", Args: `{"dir_path":"."}`})
	kept := false
	for _, r := range steps {
		if !strings.HasSuffix(r.Path, ":streamGenerateContent") {
			continue
		}
		contents := gjson.GetBytes(r.Body, "contents").Array()
		last := contents[len(contents)-1]
		if !last.Get("parts.0.functionResponse").Exists() {
			continue
		}
		call := contents[len(contents)-2].Get("parts.#(functionCall).thoughtSignature").Str
		for n := 1; n < 100 && !kept; n++ {
			kept = call == dbl.Mint("B", n)
		}
		if !kept {
			t.Fatalf("the tool step's call lost the signature B's answer gave it: %q", call)
		}
	}
	if !kept {
		t.Fatal("no tool step went through the proxy")
	}
	run(geminiKeyA, "back to the first key", false)
	var omitted int
	for _, s := range pageState(t, px).Sessions {
		if !strings.HasPrefix(s.ID, "gemini-") || s.Policy != "on" || !strings.HasPrefix(s.Client, "GeminiCLI") || !strings.HasSuffix(s.Client, "/0.61.0") {
			t.Errorf("session %q of %q with policy %q on the page", s.ID, s.Client, s.Policy)
		}
		for _, turn := range s.Turns {
			omitted += turn.OmittedReasoning
		}
	}
	if omitted == 0 {
		t.Error("the page counts no removed signature")
	}
	if !strings.Contains(px.Log(), `"omitted"`) || !strings.Contains(px.Log(), "thoughtSignatures") {
		t.Errorf("the proxy logged no omission:\n%s", px.Log())
	}
	for _, leak := range []string{geminiKeyA, geminiKeyB} {
		if strings.Contains(px.Log(), leak) {
			t.Fatal("the proxy logged an API key")
		}
	}
}

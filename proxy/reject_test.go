package proxy

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestWithHint: the hint goes at the end of the message of each envelope a
// supplier or gateway answers a replay rejection with, and nowhere else.
func TestWithHint(t *testing.T) {
	const hint = `turn it on with: continuity policy 'a"b\c' on`
	litellm, _ := json.Marshal(map[string]any{"error": map[string]any{"message": `litellm.BadRequestError: OpenAIException - {"error":{"message":"x"}}`, "type": nil, "param": nil, "code": "400"}})
	for _, c := range []struct{ name, ctype, body, message string }{
		{"openai", "application/json", `{"error":{"message":"The encrypted content could not be verified.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`, "error.message"},
		{"copilot", "application/json; charset=utf-8", `{"error":{"code":"bad_request","message":"encrypted content is invalid"}}`, "error.message"},
		{"top-level", "application/json", `{"message":"invalid encrypted content","code":"x"}`, "message"},
		{"litellm", "application/json", string(litellm), "error.message"},
	} {
		b, ok := withHint([]byte(c.body), c.ctype, hint)
		if !ok || !json.Valid(b) {
			t.Fatalf("%s: %v %s", c.name, ok, b)
		}
		was, now := gjson.Get(c.body, c.message).String(), gjson.GetBytes(b, c.message).String()
		if now != was+" — "+hint {
			t.Fatalf("%s: message %q", c.name, now)
		}
		// Every other byte kept: the hint is one insertion.
		if i := strings.Index(string(b), ` — `); string(b[:i])+string(b[len(b)-(len(c.body)-i):]) != c.body {
			t.Fatalf("%s: other bytes changed:\n%s", c.name, b)
		}
	}
	if b, ok := withHint([]byte("reasoning encrypted_content was not issued to this caller"), "text/plain; charset=utf-8", hint); !ok || string(b) != "reasoning encrypted_content was not issued to this caller — "+hint {
		t.Fatalf("text: %v %q", ok, b)
	}
	if _, ok := withHint([]byte(`{"error":"flat"}`), "application/json", hint); ok {
		t.Fatal("a body without a message string got the hint")
	}
}

// TestPosixQuote: whatever a session key holds, the quoted form is that
// key again once a POSIX shell has read it.
func TestPosixQuote(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("no sh: %v", err)
	}
	for _, s := range []string{"ses_01", "thread 1", "it's", `a"b\c$d` + "`x`", "crlf\r\nnext", "中文", "-n", "''", "tab\tend", "!*?[]{}~#&|;<>()"} {
		out, err := exec.Command(sh, "-c", "printf %s "+posixQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Fatalf("%q quoted %s: the shell read %q (%v)", s, posixQuote(s), out, err)
		}
	}
}

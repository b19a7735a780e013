package clientconfig

import (
	"errors"
	"strings"
	"testing"
)

var proxyAt = Settings{ProxyURL: "http://127.0.0.1:8788"}

// TestEditCodex: the edit sets model_provider and the provider table and
// keeps every other byte — comments, other tables, line endings — and
// editing the result again changes nothing.
func TestEditCodex(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"empty", "", `model_provider = "continuity"

[model_providers.continuity]
name = "OpenAI"
base_url = "http://127.0.0.1:8788/v1"
wire_api = "responses"
requires_openai_auth = true
supports_websockets = false
`},
		{"commented", `# my Codex settings
model = "gpt-5.4" # the one I like
model_provider = "openai"   # was this

# profiles
[profiles.fast]
model = "gpt-5.4-mini"
`, `# my Codex settings
model = "gpt-5.4" # the one I like
model_provider = "continuity"   # was this

# profiles
[profiles.fast]
model = "gpt-5.4-mini"

[model_providers.continuity]
name = "OpenAI"
base_url = "http://127.0.0.1:8788/v1"
wire_api = "responses"
requires_openai_auth = true
supports_websockets = false
`},
		{"existing table, no final newline", "[model_providers.continuity]\n# mine\nname = \"Mine\"\nbase_url = \"http://127.0.0.1:9999/v1\" # old port\n[other]\nx = 1",
			"model_provider = \"continuity\"\n[model_providers.continuity]\n# mine\nname = \"Mine\"\nbase_url = \"http://127.0.0.1:8788/v1\" # old port\nwire_api = \"responses\"\nrequires_openai_auth = true\nsupports_websockets = false\n[other]\nx = 1"},
		{"crlf", "model = \"m\"\r\n", "model = \"m\"\r\nmodel_provider = \"continuity\"\r\n\r\n[model_providers.continuity]\r\nname = \"OpenAI\"\r\nbase_url = \"http://127.0.0.1:8788/v1\"\r\nwire_api = \"responses\"\r\nrequires_openai_auth = true\r\nsupports_websockets = false\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := editCodex([]byte(c.src), proxyAt)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
			again, err := editCodex(got, proxyAt)
			if err != nil || string(again) != string(got) {
				t.Fatalf("a second edit changed the file (%v):\n%s", err, again)
			}
			if target, err := codexTarget(got); err != nil || target != proxyAt.BaseURL() {
				t.Fatalf("target %q %v", target, err)
			}
		})
	}
	envKey, err := editCodex(nil, Settings{ProxyURL: "http://127.0.0.1:1", EnvKey: "OPENAI_API_KEY"})
	if err != nil || !strings.Contains(string(envKey), "env_key = \"OPENAI_API_KEY\"\n") || strings.Contains(string(envKey), "requires_openai_auth") {
		t.Fatalf("--env-key: %v\n%s", err, envKey)
	}
}

// TestEditCodexRefuses: a malformed file and a provider defined inline are
// named errors.
func TestEditCodexRefuses(t *testing.T) {
	for _, c := range []struct {
		src  string
		want error
		msg  string
	}{
		{"model = \n", ErrMalformed, "line 1"},
		{"a = 1\na = 2\n", ErrMalformed, "line 2"},
		{"model_providers.continuity.base_url = \"x\"\n", ErrUnsupported, "model_providers.continuity.base_url"},
		{"[model_providers]\ncontinuity = { base_url = \"x\" }\n", ErrUnsupported, "[model_providers.continuity]"},
	} {
		_, err := editCodex([]byte(c.src), proxyAt)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v, want %v naming %q", c.src, err, c.want, c.msg)
		}
	}
}

// TestEditJSONC: opencode's and pi's files keep comments, trailing commas
// and indentation; the member goes where the file's own would.
func TestEditJSONC(t *testing.T) {
	oc := Clients[1]
	for _, c := range []struct {
		name, src, want string
	}{
		{"absent", "", "{\n  \"provider\": {\n    \"openai\": {\n      \"options\": {\n        \"baseURL\": \"http://127.0.0.1:8788/v1\"\n      }\n    }\n  }\n}\n"},
		{"empty object", "{}\n", "{\n  \"provider\": {\n    \"openai\": {\n      \"options\": {\n        \"baseURL\": \"http://127.0.0.1:8788/v1\"\n      }\n    }\n  }\n}\n"},
		{"comments and trailing comma", `{
    // mine
    "model": "openai/gpt-5.4", // the model
    "provider": {
        "openai": { "options": { "apiKey": "{env:K}", }, },
    },
}
`, `{
    // mine
    "model": "openai/gpt-5.4", // the model
    "provider": {
        "openai": { "options": { "apiKey": "{env:K}", "baseURL": "http://127.0.0.1:8788/v1", }, },
    },
}
`},
		{"replaced", "{\"provider\":{\"openai\":{\"options\":{\"baseURL\":\"http://x/v1\"}}}} /* end */", "{\"provider\":{\"openai\":{\"options\":{\"baseURL\":\"http://127.0.0.1:8788/v1\"}}}} /* end */"},
		{"comment after last member", "{\n  \"a\": 1 // one\n}\n", "{\n  \"a\": 1, // one\n  \"provider\": {\n    \"openai\": {\n      \"options\": {\n        \"baseURL\": \"http://127.0.0.1:8788/v1\"\n      }\n    }\n  }\n}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := oc.edit([]byte(c.src), proxyAt)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
			again, err := oc.edit(got, proxyAt)
			if err != nil || string(again) != string(got) {
				t.Fatalf("a second edit changed it (%v):\n%s", err, again)
			}
		})
	}
	for _, bad := range []struct{ src, want string }{
		{`{"provider": [1]}`, "provider is not an object"},
		{`{"provider": {"openai": {"options": {"baseURL": 3}}}}`, "is not a string"},
		{`{"a": }`, "malformed"},
		{`{"provider": {}, "provider": {}}`, "appears twice"},
	} {
		if _, err := oc.edit([]byte(bad.src), proxyAt); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.src, err, bad.want)
		}
	}
	if _, err := Clients[2].edit([]byte("/* x */ {}"), proxyAt); !errors.Is(err, ErrMalformed) {
		t.Errorf("pi with a block comment: %v", err)
	}
	got, err := Clients[2].edit([]byte("{\n\t\"providers\": {\n\t\t\"x\": {}\n\t}\n}\n"), proxyAt)
	if err != nil || string(got) != "{\n\t\"providers\": {\n\t\t\"x\": {},\n\t\t\"openai\": {\n\t\t\t\"baseUrl\": \"http://127.0.0.1:8788/v1\"\n\t\t}\n\t}\n}\n" {
		t.Fatalf("pi, tabs: %v\n%s", err, got)
	}
}

package clientconfig

import (
	"fmt"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// CodexProvider is the name of the provider table continuity adds to
// Codex's configuration.
const CodexProvider = "continuity"

var codexTable = []string{"model_providers", CodexProvider}

// codexEntry is one key of the provider table: its TOML value, and whether
// a value the person already set is kept (only the keys the proxy needs —
// where to send, which wire API, no WebSockets — are always written).
type codexEntry struct {
	key, value string
	ifAbsent   bool
}

// codexEntries are the provider's keys, README's configuration: the
// display name "OpenAI" keeps Codex's remote compaction (which the proxy
// filters too); authentication is Codex's own sign-in (ChatGPT or `codex
// login --with-api-key`) unless s names an environment variable.
func codexEntries(s Settings) []codexEntry {
	auth := codexEntry{"requires_openai_auth", "true", true}
	if s.EnvKey != "" {
		auth = codexEntry{"env_key", tomlString(s.EnvKey), false}
	}
	return []codexEntry{
		{"name", tomlString("OpenAI"), true},
		{"base_url", tomlString(s.BaseURL()), false},
		{"wire_api", tomlString("responses"), false},
		auth,
		{"supports_websockets", "false", false},
	}
}

// editCodex makes a config.toml use the continuity provider at s's proxy.
func editCodex(src []byte, s Settings) ([]byte, error) {
	d, err := parseTOML(src)
	if err != nil {
		return nil, err
	}
	if err := d.checkPlain(codexTable); err != nil {
		return nil, err
	}
	d.set(nil, "model_provider", tomlString(CodexProvider), false)
	for _, e := range codexEntries(s) {
		d.set(codexTable, e.key, e.value, e.ifAbsent)
	}
	return d.bytes(), nil
}

// CodexOverrides are the `-c key=value` arguments that make Codex use the
// continuity provider at s's proxy for one run, leaving config.toml as it is.
func CodexOverrides(s Settings) []string {
	args := []string{"-c", "model_provider=" + tomlString(CodexProvider)}
	prefix := strings.Join(codexTable, ".") + "."
	for _, e := range codexEntries(s) {
		args = append(args, "-c", prefix+e.key+"="+e.value)
	}
	return args
}

// codexTarget is where a config.toml sends Codex's requests: the base URL of
// the provider model_provider names, or a description of the built-in one.
func codexTarget(src []byte) (string, error) {
	var conf struct {
		ModelProvider  string `toml:"model_provider"`
		ModelProviders map[string]struct {
			BaseURL string `toml:"base_url"`
		} `toml:"model_providers"`
	}
	if _, err := parseTOML(src); err != nil {
		return "", err
	}
	if err := toml.Unmarshal(src, &conf); err != nil {
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	name := conf.ModelProvider
	if name == "" {
		name = "openai"
	}
	p, ok := conf.ModelProviders[name]
	if !ok || p.BaseURL == "" {
		return "", fmt.Errorf("%w: model_provider is %q, a provider Codex has built in", ErrNotPointed, name)
	}
	return p.BaseURL, nil
}

package clientconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Settings say where the proxy is and how the client should reach it.
type Settings struct {
	// ProxyURL is the proxy's address, e.g. http://127.0.0.1:8788.
	ProxyURL string
	// EnvKey, for Codex, names the environment variable that holds the API
	// key; empty means Codex's own sign-in (requires_openai_auth).
	EnvKey string
	// Provider, for opencode and pi, is the provider whose base URL moves
	// to the proxy; empty means "openai".
	Provider string
}

// BaseURL is the base URL a client is given: the proxy's /v1, which the
// proxy passes on to the upstream as it is.
func (s Settings) BaseURL() string { return strings.TrimRight(s.ProxyURL, "/") + "/v1" }

func (s Settings) provider() string {
	if s.Provider == "" {
		return "openai"
	}
	return s.Provider
}

// Env is what decides where a client keeps its configuration.
type Env struct {
	Home   string
	Getenv func(string) string
}

// OSEnv is the process's own environment.
func OSEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{Home: home, Getenv: os.Getenv}
}

// Client is one client whose configuration continuity edits.
type Client struct {
	Name string
	// Path is the file the client reads its configuration from.
	Path func(Env) string
	// Setting names, for messages, what an edit changes.
	Setting func(Settings) string
	edit    func(src []byte, s Settings) ([]byte, error)
	target  func(src []byte, s Settings) (string, error)
}

// Clients are the clients `continuity configure` knows, by name.
var Clients = []Client{
	{
		Name: "codex",
		Path: func(e Env) string {
			if d := e.Getenv("CODEX_HOME"); d != "" {
				return filepath.Join(d, "config.toml")
			}
			return filepath.Join(e.Home, ".codex", "config.toml")
		},
		Setting: func(Settings) string {
			return "model_provider and [model_providers." + CodexProvider + "]"
		},
		edit:   editCodex,
		target: func(src []byte, _ Settings) (string, error) { return codexTarget(src) },
	},
	{
		// opencode merges config.json, opencode.json and opencode.jsonc of
		// its global directory in that order; the last one present wins.
		Name: "opencode",
		Path: func(e Env) string {
			dir := e.Getenv("XDG_CONFIG_HOME")
			if dir == "" {
				dir = filepath.Join(e.Home, ".config")
			}
			dir = filepath.Join(dir, "opencode")
			if _, err := os.Stat(filepath.Join(dir, "opencode.jsonc")); err == nil {
				return filepath.Join(dir, "opencode.jsonc")
			}
			return filepath.Join(dir, "opencode.json")
		},
		Setting: func(s Settings) string { return pointer(opencodePath(s)) },
		edit:    func(src []byte, s Settings) ([]byte, error) { return jsoncSet(src, opencodePath(s), s.BaseURL()) },
		target:  func(src []byte, s Settings) (string, error) { return jsoncGet(src, opencodePath(s)) },
	},
	{
		Name: "pi",
		Path: func(e Env) string {
			dir := e.Getenv("PI_CODING_AGENT_DIR")
			switch {
			case dir == "":
				dir = filepath.Join(e.Home, ".pi", "agent")
			case dir == "~" || strings.HasPrefix(dir, "~/"):
				dir = filepath.Join(e.Home, dir[1:])
			}
			return filepath.Join(dir, "models.json")
		},
		Setting: func(s Settings) string { return pointer(piPath(s)) },
		edit:    editPi,
		target:  func(src []byte, s Settings) (string, error) { return jsoncGet(src, piPath(s)) },
	},
}

func opencodePath(s Settings) []string {
	return []string{"provider", s.provider(), "options", "baseURL"}
}
func piPath(s Settings) []string { return []string{"providers", s.provider(), "baseUrl"} }

// editPi edits models.json, which pi reads as JSON with // comments and
// trailing commas but not /* */ comments.
func editPi(src []byte, s Settings) ([]byte, error) {
	if blockComment(src) {
		return nil, fmt.Errorf("%w: pi does not read /* */ comments in models.json; remove them", ErrMalformed)
	}
	return jsoncSet(src, piPath(s), s.BaseURL())
}

// blockComment reports whether src holds /* outside a string.
func blockComment(src []byte) bool {
	in := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && c == '/' && i+1 < len(src) && src[i+1] == '*':
			return true
		case !in && c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		}
	}
	return false
}

// Lookup returns the client called name.
func Lookup(name string) (Client, bool) {
	for _, c := range Clients {
		if c.Name == name {
			return c, true
		}
	}
	return Client{}, false
}

// Target reads where the client's configuration at path sends requests.
func (c Client) Target(path string, s Settings) (string, error) {
	src, err := readLimited(path)
	if err != nil {
		return "", err
	}
	return c.target(src, s)
}

// OpencodeContent is OPENCODE_CONFIG_CONTENT for a run through the proxy:
// the content the variable already held (opencode merges it last, over
// every file), with the provider's baseURL set.
func OpencodeContent(existing string, s Settings) (string, error) {
	b, err := jsoncSet([]byte(existing), opencodePath(s), s.BaseURL())
	if err != nil {
		return "", fmt.Errorf("OPENCODE_CONFIG_CONTENT: %w", err)
	}
	return string(b), nil
}

package continuation

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/continuity-dev/continuity/diag"
)

// resourceSchemes are the URL schemes a resource source may cite: web
// addresses and the host's own resource URLs (seed://…). Others —
// javascript:, data:, file:, vbscript: — would put something executable
// or local behind a breadcrumb a person may open.
var resourceSchemes = map[string]bool{"https": true, "http": true, "seed": true}

// maxURL bounds a cited URL, as browsers and proxies commonly do.
const maxURL = 2048

// checkResourceURL checks a resource source's url for shape: an absolute
// URL of an allowed scheme with a host, no credentials, no whitespace or
// control characters. The error names the rule, never the URL.
func checkResourceURL(i int, raw string) error {
	bad := func(why string) error {
		return diag.Newf(diag.ContinuityArgumentsInvalid, "sources/%d: url %s", i, why).With("index", i).With("member", "url")
	}
	if len(raw) > maxURL {
		return bad("is longer than 2048 bytes")
	}
	if strings.IndexFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
		return bad("contains whitespace or control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("is not a URL")
	}
	if !resourceSchemes[strings.ToLower(u.Scheme)] {
		return bad("must use https, http or seed")
	}
	if u.Opaque != "" || u.Host == "" {
		return bad("must be absolute with a host (scheme://host/…)")
	}
	if u.User != nil {
		return bad("must not carry credentials")
	}
	return nil
}

// checkMemoryPath checks a memory source's path: relative to the memory
// root and inside it once resolved, with '/' or '\' as separators.
func checkMemoryPath(i int, p string) error {
	bad := func(why string) error {
		return diag.Newf(diag.ContinuityArgumentsInvalid, "sources/%d: path %s", i, why).With("index", i).With("member", "path")
	}
	if strings.IndexFunc(p, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
		return bad("contains control characters")
	}
	norm := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(norm, "/") || (len(norm) >= 2 && norm[1] == ':') || strings.HasPrefix(norm, "~") {
		return bad("must be relative to the memory root")
	}
	depth := 0
	for _, seg := range strings.Split(norm, "/") {
		switch seg {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return bad("leaves the memory root")
			}
		default:
			depth++
		}
	}
	if depth == 0 {
		return bad("names no file inside the memory root")
	}
	return nil
}

package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/continuity-dev/continuity/proxy"
)

// upstreamFlags collects the repeatable --upstream flag: a bare URL is
// served at the root (today's paths), NAME=URL under /NAME/….
type upstreamFlags struct {
	root  *url.URL
	named []proxy.Upstream
	// args are the values as given, which a registered proxy records so a
	// later `continuity run` can start the same one.
	args []string
}

// Set parses one --upstream value.
func (u *upstreamFlags) Set(v string) error {
	name, raw, isNamed := strings.Cut(v, "=")
	if !isNamed || strings.Contains(name, "/") || strings.Contains(name, ":") {
		name, raw, isNamed = "", v, false
	}
	up, err := url.Parse(raw)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return fmt.Errorf("%q is not an http or https URL, e.g. --upstream https://api.openai.com or --upstream openai=https://api.openai.com", raw)
	}
	if !isNamed {
		if u.root != nil {
			return fmt.Errorf("only one --upstream may be served at the root; name the others: --upstream NAME=%s", raw)
		}
		u.root = up
		u.args = append(u.args, v)
		return nil
	}
	if !proxy.ValidUpstreamName(name) {
		return fmt.Errorf("upstream name %q: use 1 to 32 of a-z, 0-9, - and _, starting with a letter or digit, not \"continuity\"", name)
	}
	for _, o := range u.named {
		if o.Name == name {
			return fmt.Errorf("upstream name %q is given twice", name)
		}
	}
	u.named = append(u.named, proxy.Upstream{Name: name, URL: up})
	u.args = append(u.args, v)
	return nil
}

func (u *upstreamFlags) String() string { return "" }

// describe names the upstreams for the start line, without a password a
// URL may carry: the root's URL, then /NAME/ → URL for each named one.
func (u *upstreamFlags) describe() string {
	var parts []string
	if u.root != nil {
		parts = append(parts, u.root.Redacted())
	}
	for _, n := range u.named {
		parts = append(parts, "/"+n.Name+"/ → "+n.URL.Redacted())
	}
	return strings.Join(parts, ", ")
}

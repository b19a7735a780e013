package turns

import (
	"errors"
	"slices"
	"testing"
)

func TestNewProviders(t *testing.T) {
	for _, tc := range []struct {
		declared []string
		names    []string
		ignored  []string
		err      error
	}{
		{declared: []string{"github-copilot", "openai", "openai-codex"}, names: []string{"github-copilot", "openai", "openai-codex"}},
		{declared: []string{"openai", "github-copilot-preview", "openai"}, names: []string{"openai", "github-copilot-preview"}},
		{declared: []string{"anthropic", "openai", "anthropic"}, names: []string{"openai"}, ignored: []string{"anthropic"}},
		{declared: []string{"anthropic"}, ignored: []string{"anthropic"}, err: ErrNoProvider},
		{declared: []string{}, err: ErrNoProvider},
	} {
		p, ignored, err := NewProviders(tc.declared)
		if !errors.Is(err, tc.err) || !slices.Equal(ignored, tc.ignored) {
			t.Errorf("%q: ignored %q, err %v; want %q, %v", tc.declared, ignored, err, tc.ignored, tc.err)
		}
		if err == nil && !slices.Equal(p.Names(), tc.names) {
			t.Errorf("%q: names %q, want %q", tc.declared, p.Names(), tc.names)
		}
	}
}

func TestProvidersTakePartAndStrip(t *testing.T) {
	def := Providers{}
	if !def.takesPart(Provider) || def.takesPart("github-copilot") || !def.stripsPairedIDs(Provider) {
		t.Fatal("the zero value must be DSH's Copilot route alone, stripping paired ids")
	}
	pi, _, err := NewProviders([]string{"github-copilot", "openai"})
	if err != nil {
		t.Fatal(err)
	}
	if pi.takesPart(Provider) || pi.takesPart("openai-codex") || pi.stripsPairedIDs("openai-codex") {
		t.Fatal("only declared providers take part")
	}
	if !pi.stripsPairedIDs("github-copilot") || !pi.stripsPairedIDs("openai") {
		t.Fatal("Copilot and OpenAI reject paired ids whose reasoning is gone: they must be stripped")
	}
}

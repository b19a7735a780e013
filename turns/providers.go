package turns

import (
	"errors"
	"fmt"
	"slices"
)

// Provider is the provider that takes part when the host declares none:
// DeepSeek Harness's GitHub Copilot route.
const Provider = "github-copilot-preview"

// stripsPairedIDs is, for every provider continuity knows how to filter,
// whether the id of the item that directly followed an omitted reasoning
// item is removed (docs/design.md §2.3). A provider missing here never takes
// part: filtering a supplier whose replay rules are unknown would be a guess.
var stripsPairedIDs = map[string]bool{
	// Copilot binds item ids to the connection that issued them and, like
	// OpenAI, rejects fc_/msg_ ids whose reasoning is gone; call_id keeps
	// tool calls paired with their outputs. DSH and pi name it differently.
	Provider:         true,
	"github-copilot": true,
	// OpenAI pairs the item after a reasoning item with it by id and
	// rejects "Item 'fc_…' … was provided without its required 'reasoning'
	// item"; pi-ai replays those ids for both its API-key and its ChatGPT
	// (Codex) routes.
	"openai":       true,
	"openai-codex": true,
}

// ErrNoProvider is returned by NewProviders when none of the declared
// providers is one continuity can filter.
var ErrNoProvider = errors.New("no declared payload provider is supported")

// Providers is the set of providers whose Responses calls take part, as the
// host declared them at initialize, in the host's order. The zero value is
// the default set.
type Providers struct {
	names []string
}

// DefaultProviders is the set a host gets when it declares none.
func DefaultProviders() Providers { return Providers{names: []string{Provider}} }

// NewProviders keeps the declared names continuity can filter, in order and
// without repeats, and returns the ones it cannot as ignored. Declaring
// only unknown names (or none) is ErrNoProvider: the host asked for
// filtering that cannot happen, and saying nothing would look like success.
func NewProviders(declared []string) (p Providers, ignored []string, err error) {
	for _, name := range declared {
		switch {
		case slices.Contains(p.names, name):
		case !Supported(name):
			if !slices.Contains(ignored, name) {
				ignored = append(ignored, name)
			}
		default:
			p.names = append(p.names, name)
		}
	}
	if len(p.names) == 0 {
		return Providers{}, ignored, fmt.Errorf("%w (declared %q; supported %q)", ErrNoProvider, declared, SupportedProviders())
	}
	return p, ignored, nil
}

// Supported reports whether continuity knows how to filter a provider.
func Supported(name string) bool {
	_, ok := stripsPairedIDs[name]
	return ok
}

// SupportedProviders lists every provider a host may declare, sorted.
func SupportedProviders() []string {
	names := make([]string, 0, len(stripsPairedIDs))
	for name := range stripsPairedIDs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Names is the accepted providers, in the host's order (initialize echoes
// them in payloadFilter.providers).
func (p Providers) Names() []string {
	if len(p.names) == 0 {
		return []string{Provider}
	}
	return slices.Clone(p.names)
}

// takesPart reports whether a provider's payloads are filtered.
func (p Providers) takesPart(name string) bool {
	if len(p.names) == 0 {
		return name == Provider
	}
	return slices.Contains(p.names, name)
}

// stripsPairedIDs reports the paired-id decision for an accepted provider.
func (p Providers) stripsPairedIDs(name string) bool {
	return p.takesPart(name) && stripsPairedIDs[name]
}

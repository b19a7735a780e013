package bench

import (
	"fmt"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// Kinds of payload the size table covers (docs/suppliers.md §1).
const (
	// KindReasoning is mostly reasoning items with ciphertext of about
	// 16 KiB each (4,096 items at 64 MiB): the hashing worst case.
	KindReasoning = "reasoning"
	// KindOrdinary has no reasoning: long tool outputs full of escapes and
	// data-URL images, which the filter must skip without decoding.
	KindOrdinary = "ordinary"
	// KindTypical is an agent session: screenshots, tool steps with
	// reasoning of tens of KiB and outputs of a few KiB.
	KindTypical = "typical"
)

// Kinds lists the payload kinds in table order.
var Kinds = []string{KindReasoning, KindOrdinary, KindTypical}

// Payload is a generated request body with the counts the table reports.
type Payload struct {
	Kind string
	// Size is the nominal size asked for; len(Body) is a little more.
	Size int
	payloadgen.Payload
	// Items is the number of top-level input items.
	Items int
}

// Reasoning is the number of reasoning items.
func (p Payload) Reasoning() int { return len(p.Ciphers) }

// SpecFor returns the generator spec of a kind at a size. The payloadgen
// presets are made for large payloads (a 512 KiB image would not fit in
// 64 KiB), so images, tool outputs and reasoning counts scale with size.
func SpecFor(kind string, size int) (payloadgen.Spec, error) {
	switch kind {
	case KindReasoning:
		return payloadgen.ReasoningHeavy(size, reasoningItems(size)), nil
	case KindOrdinary:
		s := payloadgen.Ordinary(size)
		s.ToolOutputBytes = min(s.ToolOutputBytes, max(1<<10, size/8))
		s.ImageBytes = min(s.ImageBytes, max(1<<10, size/4))
		return s, nil
	case KindTypical:
		s := payloadgen.Typical(size)
		s.Reasoning = max(1, s.Reasoning)
		s.ImageBytes = min(s.ImageBytes, max(1<<10, size/6))
		s.CipherBytes = min(s.CipherBytes, max(1<<10, size/4))
		return s, nil
	}
	return payloadgen.Spec{}, fmt.Errorf("bench: unknown payload kind %q", kind)
}

// reasoningItems is one reasoning item per 16 KiB, at most the filter's
// 4,096-item bound: exactly the docs/design.md §6 payload at 64 MiB.
func reasoningItems(size int) int {
	return max(1, min(4096, size/(16<<10)))
}

// Generate builds the payload of a kind at a size.
func Generate(kind string, size int) (Payload, error) {
	spec, err := SpecFor(kind, size)
	if err != nil {
		return Payload{}, err
	}
	return fromSpec(kind, spec), nil
}

func fromSpec(kind string, spec payloadgen.Spec) Payload {
	p := Payload{Kind: kind, Size: spec.Size, Payload: payloadgen.Generate(spec)}
	p.Items = int(gjson.Get(view(p.Body), "input.#").Int())
	return p
}

// view returns b as a string without a copy, for gjson; b must not change
// while the string is in use.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

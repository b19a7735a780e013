package uicontract

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// FormatWellFormed is the schema format of ids: a string of Unicode scalar
// values. Validate hands strings to the validator as WTF-8, so an id with a
// lone surrogate escape ("a\ud800") is refused here instead of aliasing
// "a\udbff" and "a\ufffd" once a lenient decoder has made all three U+FFFD.
// Validators that do not know the format ignore it, as JSON Schema says.
const FormatWellFormed = "well-formed"

func wellFormed(v any) bool {
	s, ok := v.(string)
	return !ok || utf8.ValidString(s)
}

// describe turns a validation error into a short one-line reason that names
// the failing location and keyword but not the rejected value.
func describe(err error) error {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	leaf := pick(ve)
	loc := leaf.InstanceLocation
	if loc == "" {
		loc = "/"
	}
	return fmt.Errorf("%s: %s", loc, message(leaf))
}

// pick follows the first cause down to a leaf, except at a oneOf or anyOf:
// there every branch failed, and the first branch tried is rarely the one
// the document meant. The branch meant is the one with the fewest failures
// about the shape of the value itself (a missing or unknown member, a wrong
// type) rather than about its members; ties go to the fewest failures.
func pick(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(e.Causes) > 0 {
		if k := keyword(e); (k == "oneOf" || k == "anyOf") && len(e.Causes) > 1 {
			best, bestShape, bestAll := e.Causes[0], -1, 0
			for _, branch := range e.Causes {
				shape, all := tally(branch, e.InstanceLocation)
				if bestShape < 0 || shape < bestShape || shape == bestShape && all < bestAll {
					best, bestShape, bestAll = branch, shape, all
				}
			}
			e = best
			continue
		}
		e = e.Causes[0]
	}
	return e
}

// tally counts the leaf failures under e, and those of them located at at.
func tally(e *jsonschema.ValidationError, at string) (shape, all int) {
	if len(e.Causes) == 0 {
		if e.InstanceLocation == at {
			return 1, 1
		}
		return 0, 1
	}
	for _, c := range e.Causes {
		s, a := tally(c, at)
		shape, all = shape+s, all+a
	}
	return shape, all
}

// keyword is the last segment of e's keyword location.
func keyword(e *jsonschema.ValidationError) string {
	k := e.KeywordLocation
	return k[strings.LastIndexByte(k, '/')+1:]
}

// message is the validator's message without the instance's value, which a
// few keywords quote ("… is not valid …", "… but found …").
func message(e *jsonschema.ValidationError) string {
	m := e.Message
	switch keyword(e) {
	case "format":
		if strings.HasSuffix(m, "valid "+quote(FormatWellFormed)) {
			return "holds a lone surrogate escape (ids must be well-formed Unicode)"
		}
		if i := strings.LastIndex(m, " is not valid "); i >= 0 {
			return "is not a valid " + m[i+len(" is not valid "):]
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		if i := strings.Index(m, " but found"); i >= 0 {
			return m[:i]
		}
	case "multipleOf":
		if i := strings.LastIndex(m, " not multipleOf "); i >= 0 {
			return "must be a multiple of " + m[i+len(" not multipleOf "):]
		}
	}
	return m
}

// quote is how the validator quotes a format's name in its message.
func quote(s string) string { return "'" + s + "'" }

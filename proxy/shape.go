package proxy

import (
	"errors"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/jsonscan"
)

// errShape reports a body the placing scan could not follow: it is not
// JSON, or not an object, and is answered as INVALID_PAYLOAD unsent.
var errShape = errors.New("proxy: the body is not a Responses request object")

// bodyKeys is what placing a request reads from its body.
type bodyKeys struct {
	session  string // prompt_cache_key, "" when absent or not a string
	users    int    // user messages in input
	lastUser bool   // the last input item is a user message
	lastTool bool   // the last input item is a tool result
	// history: input carries an item other than a system, developer or
	// user message — the request continues a conversation.
	history bool
}

// scanBody reads the session key and the shape of input with the
// project's JSON scanner in trusted mode: value ends only, strings skipped
// by a vectorised search, nothing decoded but the key and the short type
// and role values. It places the bodies the filter's own scan does not
// (shapeKeys): compressed ones, which the filter validates afterwards, and
// those the filter refused, which pass only when nothing is filtered.
func scanBody(body []byte) (bodyKeys, error) {
	var k bodyKeys
	sc := jsonscan.Scanner{B: body, Trusted: true}
	err := sc.Document(func(keyStart, keyEnd, v int) (int, error) {
		name := body[keyStart:keyEnd]
		switch {
		case sc.StrIs(name, "prompt_cache_key"):
			end, err := sc.Value(v)
			if err == nil && body[v] == '"' {
				if s, ok := sc.Decoded(body[v+1 : end-1]); ok {
					k.session = string(s)
				}
			}
			return end, err
		case sc.StrIs(name, "input") && body[v] == '[':
			return inputShape(&sc, v, &k)
		}
		return sc.Value(v)
	})
	if err != nil {
		return bodyKeys{}, errShape
	}
	return k, nil
}

// inputShape walks the input array at i, reading each item's type and role.
func inputShape(sc *jsonscan.Scanner, i int, k *bodyKeys) (int, error) {
	b := sc.B
	i = sc.WS(i + 1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		var end int
		var err error
		var kind itemKinds
		if i < len(b) && b[i] == '{' {
			kind, end, err = itemKind(sc, i)
		} else {
			end, err = sc.Value(i)
		}
		if err != nil {
			return 0, err
		}
		k.add(kind)
		i = sc.WS(end)
		switch {
		case i < len(b) && b[i] == ',':
			i = sc.WS(i + 1)
		case i < len(b) && b[i] == ']':
			return i + 1, nil
		default:
			return 0, errShape
		}
	}
}

// add counts one more input item, the last so far.
func (k *bodyKeys) add(kind itemKinds) {
	if kind.user {
		k.users++
	}
	k.history = k.history || kind.history
	k.lastUser, k.lastTool = kind.user, kind.tool
}

// itemKinds is what placing needs to know of one input item.
type itemKinds struct {
	user    bool // a user message (typed "message" or bare)
	tool    bool // a tool result
	history bool // anything but a system, developer or user message
}

// itemKind reads one input item object at i: its kinds and where it ends.
func itemKind(sc *jsonscan.Scanner, i int) (kind itemKinds, end int, err error) {
	b := sc.B
	var typ, role []byte
	i = sc.WS(i + 1)
	if i < len(b) && b[i] == '}' {
		return kindsOf(sc, nil, nil), i + 1, nil // like any item without type and role
	}
	for {
		keyEnd, v, err := sc.Key(i)
		if err != nil {
			return kind, 0, err
		}
		ve, err := sc.Value(v)
		if err != nil {
			return kind, 0, err
		}
		switch name := b[i:keyEnd]; {
		case sc.StrIs(name, "type"):
			typ = b[v:ve]
		case sc.StrIs(name, "role"):
			role = b[v:ve]
		}
		i = sc.WS(ve)
		if i < len(b) && b[i] == ',' {
			i = sc.WS(i + 1)
			continue
		}
		if i >= len(b) || b[i] != '}' {
			return kind, 0, errShape
		}
		end = i + 1
		break
	}
	return kindsOf(sc, typ, role), end, nil
}

// kindsOf is what an item whose type and role values (raw JSON, nil when
// absent) are typ and role is to placing.
func kindsOf(sc *jsonscan.Scanner, typ, role []byte) itemKinds {
	var kind itemKinds
	message := typ == nil || sc.StrIs(typ, "message")
	kind.user = message && sc.StrIs(role, "user")
	kind.tool = sc.StrIs(typ, "function_call_output") || sc.StrIs(typ, "custom_tool_call_output")
	kind.history = !(message && (kind.user || sc.StrIs(role, "system") || sc.StrIs(role, "developer")))
	return kind
}

// shapeKeys is scanBody's reading of a body the filter has validated,
// taken from the filter's own scan (filter.Shape) instead of a second walk.
func shapeKeys(sh filter.Shape) bodyKeys {
	var k bodyKeys
	var sc jsonscan.Scanner
	sh.Members(func(name, value []byte) {
		if !sc.StrIs(name, "prompt_cache_key") || value[0] != '"' {
			return
		}
		if s, ok := sc.Decoded(value[1 : len(value)-1]); ok {
			k.session = string(s)
		}
	})
	sh.Items(func(typ, role []byte) { k.add(kindsOf(&sc, typ, role)) })
	return k
}

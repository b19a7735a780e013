package settings

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/continuity-dev/continuity/hostapi"
)

// ApplyOps applies settings/mutate operations to a namespace value (a JSON
// object; empty or null means {}) and returns the new value. It is the path
// semantics both the embedded store and test doubles share with the host:
// "set" creates missing intermediate objects and replaces the leaf, "unset"
// removes the leaf and is a no-op when any part of the path is missing.
// Members the operations do not touch keep their bytes (compacted).
func ApplyOps(value json.RawMessage, ops []hostapi.Op) (json.RawMessage, error) {
	cur := value
	for i, op := range ops {
		if len(op.Path) == 0 {
			return nil, fmt.Errorf("op %d: empty path", i)
		}
		var next json.RawMessage
		var err error
		switch op.Op {
		case "set":
			if !json.Valid(op.Value) {
				return nil, fmt.Errorf("op %d: set value is not JSON", i)
			}
			next, err = setPath(cur, op.Path, op.Value)
		case "unset":
			if len(op.Value) != 0 {
				return nil, fmt.Errorf("op %d: unset takes no value", i)
			}
			next, err = unsetPath(cur, op.Path)
		default:
			return nil, fmt.Errorf("op %d: unknown op %q", i, op.Op)
		}
		if err != nil {
			return nil, fmt.Errorf("op %d: %w", i, err)
		}
		cur = next
	}
	if t := bytes.TrimSpace(cur); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		cur = json.RawMessage("{}")
	}
	return cur, nil
}

// object decodes raw as a JSON object; empty input and null are {}.
func object(raw json.RawMessage) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return m, nil
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("not an object")
	}
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, fmt.Errorf("not an object")
	}
	return m, nil
}

func setPath(raw json.RawMessage, path []string, value json.RawMessage) (json.RawMessage, error) {
	m, err := object(raw)
	if err != nil {
		return nil, fmt.Errorf("path %q: parent is %w", path[0], err)
	}
	if len(path) == 1 {
		m[path[0]] = value
	} else {
		child, err := setPath(m[path[0]], path[1:], value)
		if err != nil {
			return nil, err
		}
		m[path[0]] = child
	}
	return json.Marshal(m)
}

func unsetPath(raw json.RawMessage, path []string) (json.RawMessage, error) {
	m, err := object(raw)
	if err != nil {
		return nil, fmt.Errorf("path %q: parent is %w", path[0], err)
	}
	child, ok := m[path[0]]
	if !ok {
		return raw, nil
	}
	if len(path) == 1 {
		delete(m, path[0])
	} else {
		c, err := unsetPath(child, path[1:])
		if err != nil {
			return nil, err
		}
		m[path[0]] = c
	}
	return json.Marshal(m)
}

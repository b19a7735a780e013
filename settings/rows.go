package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/continuity-dev/continuity/internal/strictjson"
)

// The namespace and the only two keys of it that continuity writes.
const (
	Namespace      = "github-copilot"
	KeySessions    = "sessionContinuation"
	KeyDefaults    = "continuationDefaultHistory"
	RowVersion     = 1
	MaxRows        = 2048 // sessionContinuation rows
	MaxHistory     = 2048 // continuationDefaultHistory rows
	MaxSessionID   = 256  // characters (code points) in a sessionId
	maxTimestampMs = 1<<53 - 1
)

// Row is one sessionContinuation entry: a session's explicit policy. A row
// whose Enabled is nil is a legacy consent from before the enabled field
// existed and means on; it is kept as it is when other rows change.
type Row struct {
	SessionID   string `json:"sessionId"`
	Version     int    `json:"version"`
	ConsentedAt int64  `json:"consentedAt"` // ms since the epoch
	Enabled     *bool  `json:"enabled,omitempty"`
}

// On reports the row's meaning: its explicit state, or on for a legacy row.
func (r Row) On() bool { return r.Enabled == nil || *r.Enabled }

// DefaultRow is one continuationDefaultHistory entry: from ChangedAt (ms
// since the epoch) on, sessions born later default to Enabled.
type DefaultRow struct {
	Enabled   bool  `json:"enabled"`
	ChangedAt int64 `json:"changedAt"`
}

// ValidSessionID reports why id cannot be a stored sessionId: it must have
// 1–256 characters of valid UTF-8 and no Unicode control (Cc) or format (Cf)
// characters. The error never repeats the id.
func ValidSessionID(id string) error {
	if !utf8.ValidString(id) {
		return errors.New("sessionId is not valid UTF-8")
	}
	n := utf8.RuneCountInString(id)
	if n < 1 || n > MaxSessionID {
		return fmt.Errorf("sessionId has %d characters, want 1–%d", n, MaxSessionID)
	}
	for _, r := range id {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) {
			return errors.New("sessionId contains a control or format character")
		}
	}
	return nil
}

// parseRows strictly decodes a stored sessionContinuation value: an array of
// at most MaxRows objects with exactly the known members, version 1, an
// integer consentedAt, an optional boolean enabled and unique valid ids.
func parseRows(raw json.RawMessage) ([]Row, error) {
	items, err := array(raw, MaxRows)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(items))
	seen := make(map[string]int, len(items))
	for i, item := range items {
		m, err := members(item, []string{"sessionId", "version", "consentedAt"}, "enabled")
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		var r Row
		id, ok := exactString(m["sessionId"])
		if !ok {
			return nil, fmt.Errorf("[%d].sessionId: not a string", i)
		}
		r.SessionID = id
		if err := ValidSessionID(r.SessionID); err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		if j, dup := seen[r.SessionID]; dup {
			return nil, fmt.Errorf("[%d]: sessionId repeats row %d", i, j)
		}
		seen[r.SessionID] = i
		if v, ok := integer(m["version"]); !ok || v != RowVersion {
			return nil, fmt.Errorf("[%d].version: want %d", i, RowVersion)
		}
		r.Version = RowVersion
		if r.ConsentedAt, err = timestamp(m["consentedAt"]); err != nil {
			return nil, fmt.Errorf("[%d].consentedAt: %w", i, err)
		}
		if e, present := m["enabled"]; present {
			b, ok := boolean(e)
			if !ok {
				return nil, fmt.Errorf("[%d].enabled: not a boolean", i)
			}
			r.Enabled = &b
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// parseHistory strictly decodes a stored continuationDefaultHistory value:
// at most MaxHistory {enabled, changedAt} objects with strictly increasing
// changedAt.
func parseHistory(raw json.RawMessage) ([]DefaultRow, error) {
	items, err := array(raw, MaxHistory)
	if err != nil {
		return nil, err
	}
	hist := make([]DefaultRow, 0, len(items))
	for i, item := range items {
		m, err := members(item, []string{"enabled", "changedAt"})
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		var d DefaultRow
		var ok bool
		if d.Enabled, ok = boolean(m["enabled"]); !ok {
			return nil, fmt.Errorf("[%d].enabled: not a boolean", i)
		}
		if d.ChangedAt, err = timestamp(m["changedAt"]); err != nil {
			return nil, fmt.Errorf("[%d].changedAt: %w", i, err)
		}
		if i > 0 && d.ChangedAt <= hist[i-1].ChangedAt {
			return nil, fmt.Errorf("[%d].changedAt: not after row %d", i, i-1)
		}
		hist = append(hist, d)
	}
	return hist, nil
}

// array decodes raw as a JSON array of at most limit elements. An absent
// key (nil raw) is an empty array; null or any other type is malformed.
func array(raw json.RawMessage, limit int) ([]json.RawMessage, error) {
	if raw == nil {
		return nil, nil
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '[' {
		return nil, errors.New("not an array")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(t, &items); err != nil {
		return nil, errors.New("not an array")
	}
	if len(items) > limit {
		return nil, fmt.Errorf("%d rows, more than %d", len(items), limit)
	}
	return items, nil
}

// members decodes an object that has every required member and no member
// outside required and optional.
func members(raw json.RawMessage, required []string, optional ...string) (map[string]json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return nil, errors.New("not an object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, errors.New("not an object")
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("missing %s", k)
		}
	}
	for k := range m {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			return nil, errors.New("unknown member")
		}
	}
	return m, nil
}

// exactString decodes a JSON string without replacing a lone surrogate
// escape with U+FFFD (as encoding/json does): such an id stays invalid
// UTF-8, which ValidSessionID refuses, instead of becoming another
// session's id.
func exactString(raw json.RawMessage) (string, bool) {
	v, err := strictjson.Decode(raw)
	if err != nil {
		return "", false
	}
	s, ok := v.Value().(string)
	return strings.Clone(s), ok
}

func boolean(raw json.RawMessage) (bool, bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// integer accepts only JSON integer syntax (no fraction, no exponent).
func integer(raw json.RawMessage) (int64, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.ContainsAny(t, ".eE+") {
		return 0, false
	}
	v, err := strconv.ParseInt(string(t), 10, 64)
	return v, err == nil
}

// timestamp accepts an integer count of ms in [0, 2^53-1], the range a
// JavaScript host can hold exactly.
func timestamp(raw json.RawMessage) (int64, error) {
	v, ok := integer(raw)
	if !ok {
		return 0, errors.New("not an integer")
	}
	if v < 0 || v > maxTimestampMs {
		return 0, errors.New("out of range")
	}
	return v, nil
}

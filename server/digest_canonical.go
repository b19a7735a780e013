package server

import (
	"errors"
	"strconv"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/jsonscan"
	"github.com/continuity-dev/continuity/turns"
)

// The canonical form of llm/payloadDigest's params, which readCanonical
// reads without the schema. Each rule below is one of the schema's,
// narrowed so that what passes is valid under it whatever the Unicode
// tables say (the test TestCanonicalDigestParamsAgreeWithTheSchema holds
// the two together):
//   - members: the schema's names, each at most once, written without
//     escapes; requestId, sessionId, turn, step, provider, model and
//     items present;
//   - requestId, provider, model: 1–256 printable ASCII characters other
//     than space (no control, format or white space characters);
//     sessionId: the same with space allowed; purpose: one of the enum;
//   - turn from 0 and step from 1, up to 2^53−1, and units from 1 to
//     2^40: digits only, without a leading zero;
//   - items: at most 65,537 objects; type: at most 256 printable ASCII
//     characters; id: true or false; sha256: 64 lowercase hex digits.

// Envelope members, as bits of the at-most-once rule.
const (
	memberRequestID = 1 << iota
	memberSessionID
	memberTurn
	memberStep
	memberProvider
	memberModel
	memberPurpose
	memberItems

	requiredMembers = memberRequestID | memberSessionID | memberTurn | memberStep | memberProvider | memberModel | memberItems
)

// maxSafeInteger is the schema's bound of turn and step, 2^53−1.
const maxSafeInteger = 1<<53 - 1

// maxUnits is the schema's bound of units, 2^40.
const maxUnits = 1 << 40

// readCanonical reads params in the canonical form in one trusted pass
// (the wire validated the frame). ok is false at the first thing that is
// not canonical; nothing is then decided from what was read.
func readCanonical(raw []byte) (req turns.PayloadRequest, items []filter.DescribedItem, ok bool) {
	sc := jsonscan.Scanner{B: raw, Trusted: true}
	seen := 0
	err := sc.Document(func(keyStart, keyEnd, v int) (int, error) {
		bit, end := readEnvelopeMember(&sc, &req, &items, raw[keyStart+1:keyEnd-1], v)
		if bit == 0 || seen&bit != 0 {
			return 0, errNotCanonical
		}
		seen |= bit
		return end, nil
	})
	if err != nil || seen&requiredMembers != requiredMembers {
		return req, nil, false
	}
	if req.Purpose == "" {
		req.Purpose = "chat"
	}
	return req, items, true
}

// errNotCanonical stops readCanonical's scan; it never leaves it.
var errNotCanonical = errors.New("not in the canonical form")

// readEnvelopeMember reads the member whose value starts at v; bit is 0
// when it is not canonical.
func readEnvelopeMember(sc *jsonscan.Scanner, req *turns.PayloadRequest, items *[]filter.DescribedItem, name []byte, v int) (bit, end int) {
	b := sc.B
	if string(name) == "items" {
		list, end, ok := canonicalItems(sc, v)
		if !ok {
			return 0, 0
		}
		*items = list
		return memberItems, end
	}
	end, err := sc.Value(v)
	if err != nil {
		return 0, 0
	}
	val := b[v:end]
	var str *string
	switch string(name) {
	case "requestId":
		bit, str = memberRequestID, &req.RequestID
	case "sessionId":
		bit, str = memberSessionID, &req.SessionID
	case "provider":
		bit, str = memberProvider, &req.Provider
	case "model":
		bit, str = memberModel, &req.Model
	case "purpose":
		if !purposeValue(val) {
			return 0, 0
		}
		req.Purpose = string(val[1 : len(val)-1])
		return memberPurpose, end
	case "turn":
		n, ok := plainInteger(val, 0, maxSafeInteger)
		if !ok {
			return 0, 0
		}
		req.Turn = n
		return memberTurn, end
	case "step":
		n, ok := plainInteger(val, 1, maxSafeInteger)
		if !ok {
			return 0, 0
		}
		req.Step = n
		return memberStep, end
	default:
		return 0, 0
	}
	s, ok := asciiString(val, 1, 256, bit == memberSessionID)
	if !ok {
		return 0, 0
	}
	*str = string(s)
	return bit, end
}

// purposeValue reports whether v is one of the schema's purposes, unescaped.
func purposeValue(v []byte) bool {
	switch string(v) {
	case `"chat"`, `"compaction"`, `"title"`, `"session-title"`, `"classifier"`:
		return true
	}
	return false
}

// asciiString returns a string value's bytes when it is printable ASCII
// without escapes (space only when space is set), from min to max bytes
// long, which for ASCII is characters.
func asciiString(v []byte, min, max int, space bool) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || len(v)-2 < min || len(v)-2 > max {
		return nil, false
	}
	s := v[1 : len(v)-1]
	for _, c := range s {
		if c < 0x20 || c > 0x7e || c == '\\' || c == ' ' && !space {
			return nil, false
		}
	}
	return s, true
}

// plainInteger reads an integer written as digits only, without a leading
// zero, from min to max.
func plainInteger(v []byte, min, max int64) (int64, bool) {
	if len(v) == 0 || len(v) > 16 || v[0] == '0' && len(v) > 1 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || n < min || n > max {
		return 0, false
	}
	return n, true
}

package server

import (
	"github.com/continuity-dev/continuity/jsonscan"
	"github.com/continuity-dev/continuity/turns"
)

// fastEnvelope reads a large-member method's envelope straight from the
// members splitParams found, without the schema validator, when every
// member is in a form the reader can judge exactly by itself; head is a
// pointer to splitParams' head. It reports false — nothing decided, head
// untouched — for anything else, and splitParams then validates and
// decodes the envelope as before, so whatever the fast reader accepts the
// schema accepts too and decodes to the same head (the differential test,
// TestFastPayloadEnvelopeAgreesWithTheSchema, holds it to that).
//
// It exists for llm/payload, whose envelope is read once per model call on
// the path of the reply: building the envelope, decoding it into a tree,
// walking the schema and decoding it again took about 0.1 ms of a 1 MiB
// round trip (issue 26), for a few short strings and two integers.
type fastEnvelope func(raw []byte, members []jsonscan.Member, large int, head any) bool

// fastEnvelopes are the fast readers by envelope schema.
var fastEnvelopes = map[string]fastEnvelope{"wire/llm/payload.params": fastPayloadEnvelope}

// fastPayloadEnvelope is llm/payload's fast reader, with the rules of
// llm/payloadDigest's canonical form (digest_canonical.go) for the members
// the two share: members named exactly (no escapes) as
// wire/llm/payload.params names them, each at most once; requestId,
// provider, model, compactionId and retryOf of 1–256 printable ASCII
// characters other than space, sessionId the same with space allowed,
// purpose one of the enum; step an integer ≥ 1 and turn an integer ≥ 0 or
// null, both in plain digits up to 2^53 − 1; and every required member
// present. large is the index of the payload member, or −1 when there is
// none. Any other member, escape, character or number form goes to the
// schema.
func fastPayloadEnvelope(raw []byte, members []jsonscan.Member, large int, head any) bool {
	h, ok := head.(*turns.PayloadRequest)
	if !ok || large < 0 {
		return false
	}
	var p turns.PayloadRequest
	seen := 0
	for k, m := range members {
		if k == large {
			continue
		}
		v := m.Value(raw)
		var bit int
		var str *string
		switch string(raw[m.KeyStart:m.KeyEnd]) {
		case `"requestId"`:
			bit, str = memberRequestID, &p.RequestID
		case `"sessionId"`:
			bit, str = memberSessionID, &p.SessionID
		case `"provider"`:
			bit, str = memberProvider, &p.Provider
		case `"model"`:
			bit, str = memberModel, &p.Model
		case `"compactionId"`:
			bit, str = memberCompactionID, &p.CompactionID
		case `"retryOf"`:
			bit, str = memberRetryOf, &p.RetryOf
		case `"purpose"`:
			if !purposeValue(v) {
				return false
			}
			bit, p.Purpose = memberPurpose, string(v[1:len(v)-1])
		case `"turn"`:
			bit = memberTurn
			if string(v) != "null" { // null, a manual compaction between turns, decodes as 0
				if p.Turn, ok = plainInteger(v, 0, maxSafeInteger); !ok {
					return false
				}
			}
		case `"step"`:
			bit = memberStep
			if p.Step, ok = plainInteger(v, 1, maxSafeInteger); !ok {
				return false
			}
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		if str != nil {
			s, ok := asciiString(v, 1, 256, bit == memberSessionID)
			if !ok {
				return false
			}
			*str = string(s)
		}
	}
	if seen&requiredPayloadMembers != requiredPayloadMembers {
		return false
	}
	*h = p
	return true
}

// The members llm/payload's envelope has beyond those it shares with
// llm/payloadDigest's (digest_canonical.go), as bits of the same set.
const (
	memberCompactionID = memberItems << (1 + iota)
	memberRetryOf

	requiredPayloadMembers = memberRequestID | memberSessionID | memberTurn | memberStep | memberProvider | memberModel
)

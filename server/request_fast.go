package server

import (
	"github.com/continuity-dev/continuity/jsonscan"
	"github.com/continuity-dev/continuity/turns"
)

// fastAgentRequest reads agent/request's params without the schema
// validator when every member is in a form it can judge exactly by
// itself, and reports false — nothing decided — for anything else;
// readAgentRequest then validates and decodes them as before. So whatever
// it accepts the schema accepts too and decodes to the same request and
// config (TestFastAgentRequestAgreesWithTheSchema holds it to that), and
// every refusal keeps the schema's code and words.
//
// agent/request comes before every model call; strictly decoding its
// params into a tree, walking the schema and decoding them again took
// about a quarter of its round trip and 159 of its 356 allocations (7 KB;
// issue 26), for a few short strings and two integers.
//
// The form: members named exactly (no escapes) as
// wire/agent/request.params names them, each at most once and every
// required one present; sessionId of 1–256 printable ASCII characters,
// requestId and accountId the same without space; turn an integer ≥ 0 and
// step an integer ≥ 1 in plain digits up to 2^53 − 1; config an object of
// only provider and model (printable ASCII without space, 1–256) and
// optionally reasoningEffort (printable ASCII, at most 64), each once.
// Any other member — the schema lets a host add its own, in config too —
// escape, character or number form goes to the schema.
func fastAgentRequest(raw []byte) (p agentRequestParams, ok bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return p, false
	}
	sc := jsonscan.Scanner{B: raw, Trusted: true}
	var buf [8]jsonscan.Member
	members, err := sc.Members(buf[:0])
	if err != nil {
		return p, false
	}
	req := &p.AgentRequest
	seen := 0
	for _, m := range members {
		v := m.Value(raw)
		var bit int
		var str *string
		space := false
		switch string(raw[m.KeyStart:m.KeyEnd]) {
		case `"sessionId"`:
			bit, str, space = requestSessionID, &req.SessionID, true
		case `"requestId"`:
			bit, str = requestRequestID, &req.RequestID
		case `"accountId"`:
			bit, str = requestAccountID, &req.AccountID
		case `"turn"`:
			bit = requestTurn
			if req.Turn, ok = plainInteger(v, 0, maxSafeInteger); !ok {
				return p, false
			}
		case `"step"`:
			bit = requestStep
			if req.Step, ok = plainInteger(v, 1, maxSafeInteger); !ok {
				return p, false
			}
		case `"config"`:
			bit = requestConfig
			if !fastRequestConfig(v, req) {
				return p, false
			}
			p.config = []byte(string(v)) // a copy: the frame's buffer goes back to the wire
		default:
			return p, false
		}
		if seen&bit != 0 {
			return p, false
		}
		seen |= bit
		if str != nil {
			s, ok := asciiString(v, 1, 256, space)
			if !ok {
				return p, false
			}
			*str = string(s)
		}
	}
	return p, seen&requiredRequestMembers == requiredRequestMembers
}

// fastRequestConfig reads agent/request's config in fastAgentRequest's
// form into req.Config.
func fastRequestConfig(v []byte, req *turns.AgentRequest) bool {
	if len(v) == 0 || v[0] != '{' {
		return false
	}
	sc := jsonscan.Scanner{B: v, Trusted: true}
	var buf [4]jsonscan.Member
	members, err := sc.Members(buf[:0])
	if err != nil {
		return false
	}
	seen := 0
	for _, m := range members {
		var bit, max int
		var str *string
		switch string(v[m.KeyStart:m.KeyEnd]) {
		case `"provider"`:
			bit, str, max = configProvider, &req.Config.Provider, 256
		case `"model"`:
			bit, str, max = configModel, &req.Config.Model, 256
		case `"reasoningEffort"`:
			bit, str, max = configReasoningEffort, &req.Config.ReasoningEffort, 64
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		min, space := 1, false
		if bit == configReasoningEffort {
			min, space = 0, true
		}
		s, ok := asciiString(m.Value(v), min, max, space)
		if !ok {
			return false
		}
		*str = string(s)
	}
	return seen&(configProvider|configModel) == configProvider|configModel
}

// agent/request's members and its config's, as bits of a set.
const (
	requestSessionID = 1 << iota
	requestTurn
	requestStep
	requestRequestID
	requestConfig
	requestAccountID

	requiredRequestMembers = requestSessionID | requestTurn | requestStep | requestRequestID | requestConfig
)

const (
	configProvider = 1 << iota
	configModel
	configReasoningEffort
)

package server

import (
	"encoding/json"
	"strconv"

	"github.com/continuity-dev/continuity/internal/strictjson"
	"github.com/continuity-dev/continuity/jsonscan"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
	"github.com/continuity-dev/continuity/wire"
)

// largeMember names the one member of a method's params that is passed on
// without being decoded or copied — llm/payload's payload, remote/invoke's
// args, either of which may be 64 MiB — and how the rest, the envelope,
// is read.
type largeMember struct {
	method string // names the method in errors
	schema string // the envelope's schema
	name   string
	// anyValue sets the member's value aside whatever it is, and the
	// caller judges one that is not an object (llm/payload: the body's
	// fault, INVALID_PAYLOAD). Without it only an object is set aside and
	// any other value stays in the envelope for the schema to judge
	// (remote/invoke: args must be an object or null).
	anyValue bool
}

// splitParams reads params around their large member: one trusted pass
// over the top-level members (the wire validated the frame) finds it by
// offset, stepping over the frame's long strings without a search
// (wire.Params.Long); a member name given twice is refused
// (internal/strictjson's rule, as everywhere params are read); and the
// envelope — the params with the member's value replaced by {} — is a few
// hundred bytes that are validated strictly against the schema and decoded
// into head like any other params, unless the schema's fast reader
// (fastEnvelopes) can judge them exactly by itself. large is a view of the
// params' bytes: the member's value, or nil when it is absent (or, without
// anyValue, not an object).
func splitParams[H any](params *wire.Params, lm largeMember) (head H, large []byte, err error) {
	raw := params.Bytes()
	if raw == nil {
		return head, nil, invalidParams("params are required")
	}
	sc := jsonscan.Scanner{B: raw, Trusted: true, Long: params.Long()}
	// The read loop found the members of a large frame's params while it
	// validated the frame: walking a 64 MiB payload again to find its end
	// took about 7 ms after the frame had arrived. Only read here.
	members, ok := params.Members()
	if !ok {
		if members, err = sc.Members(make([]jsonscan.Member, 0, 12)); err != nil {
			return head, nil, invalidParams("params must be an object")
		}
	}
	if name, dup := strictjson.Duplicate(&sc, members); dup {
		return head, nil, invalidParams(lm.method + ": " + strconv.Quote(clip(name)) + " appears more than once")
	}
	at := -1 // the large member's index
	for k, m := range members {
		if v := m.Value(raw); sc.NameIs(m, lm.name) && (lm.anyValue || v[0] == '{') {
			at, large = k, v
		}
	}
	if fast := fastEnvelopes[lm.schema]; fast != nil && fast(raw, members, at, &head) {
		return head, large, nil
	}
	envelope := make([]byte, 0, 256)
	envelope = append(envelope, '{')
	for k, m := range members {
		if k > 0 {
			envelope = append(envelope, ',')
		}
		if k == at {
			envelope = append(append(envelope, raw[m.KeyStart:m.KeyEnd]...), `:{}`...)
			continue
		}
		envelope = append(envelope, raw[m.KeyStart:m.ValEnd]...)
	}
	envelope = append(envelope, '}')
	if err := uicontract.Validate(lm.schema, envelope); err != nil {
		return head, nil, invalidParams(err.Error())
	}
	if err := json.Unmarshal(envelope, &head); err != nil {
		return head, nil, invalidParams(lm.method + ": " + wire.DecodeError(err))
	}
	return head, large, nil
}

package server

import (
	"encoding/json"
	"strconv"

	"github.com/continuity-dev/continuity/internal/strictjson"
	"github.com/continuity-dev/continuity/jsonscan"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
	"github.com/continuity-dev/continuity/wire"
)

// splitInvokeParams reads remote/invoke params without decoding the args:
// the frame is already valid JSON, so the top level is scanned, a member
// name given twice is refused (a reader taking the first copy and another
// the last would disagree), and the envelope — the params with an object
// args replaced by {} — is what the schema checks. Args is a view of raw,
// checked strictly against its method's own schema, so a
// client's bad argument is an arguments-invalid result and a 64 MiB member
// is neither decoded nor copied on the way (issue 18 #7, #12).
func splitInvokeParams(raw []byte) (invokeParams, error) {
	var p invokeParams
	if raw == nil {
		return p, invalidParams("params are required")
	}
	sc := jsonscan.Scanner{B: raw, Trusted: true}
	members, err := sc.Members(make([]jsonscan.Member, 0, 4))
	if err != nil {
		return p, invalidParams("params must be an object")
	}
	if name, dup := strictjson.Duplicate(&sc, members); dup {
		return p, invalidParams("remote/invoke: " + strconv.Quote(clip(name)) + " appears more than once")
	}
	envelope := make([]byte, 0, 128)
	envelope = append(envelope, '{')
	for k, m := range members {
		if k > 0 {
			envelope = append(envelope, ',')
		}
		if v := m.Value(raw); sc.NameIs(m, "args") && v[0] == '{' {
			p.Args = v
			envelope = append(append(envelope, raw[m.KeyStart:m.KeyEnd]...), `:{}`...)
			continue
		}
		envelope = append(envelope, raw[m.KeyStart:m.ValEnd]...)
	}
	envelope = append(envelope, '}')
	if err := uicontract.Validate("wire/remote/invoke.params", envelope); err != nil {
		return p, invalidParams(err.Error())
	}
	var head struct {
		Namespace string `json:"namespace"`
		Method    string `json:"method"`
	}
	if err := json.Unmarshal(envelope, &head); err != nil {
		return p, invalidParams("remote/invoke: " + wire.DecodeError(err))
	}
	p.Namespace, p.Method = head.Namespace, head.Method
	return p, nil
}

// checkInvokeParams is remote/invoke's check in the method table.
func checkInvokeParams(raw []byte) error {
	_, err := splitInvokeParams(raw)
	return err
}

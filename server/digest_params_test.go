package server

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
	"github.com/continuity-dev/continuity/wire"
)

const (
	digestA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	// canonicalDigestParams is what the pi extension sends.
	canonicalDigestParams = `{"requestId":"pi-1-2","sessionId":"s 1","turn":3,"step":1,"provider":"github-copilot","model":"gpt-5.4","purpose":"chat",` +
		`"items":[{},{"type":"reasoning","id":true,"sha256":"` + digestA + `","units":14007},{"type":"function_call","id":true},{"type":"function_call_output"}]}`
)

// digestParamVariants are params around the canonical form: each changes
// one thing, across every rule of the canonical reader and past every
// bound of the schema.
func digestParamVariants() []string {
	base := canonicalDigestParams
	swap := func(old, new string) string {
		if !strings.Contains(base, old) {
			panic("no " + old)
		}
		return strings.Replace(base, old, new, 1)
	}
	item := func(s string) string { return swap(`{"type":"function_call_output"}`, s) }
	out := []string{base,
		// Members at the top.
		swap(`"purpose":"chat",`, ``),
		swap(`"purpose":"chat",`, `"extra":1,`),
		swap(`"purpose":"chat",`, `"compactionId":"c1",`),
		swap(`"purpose":"chat",`, `"retryOf":"r1",`),
		swap(`"purpose":"chat",`, `"purpose":"chat","purpose":"chat",`),
		swap(`"requestId"`, `"request\u0049d"`),
		swap(`"requestId":"pi-1-2",`, ``),
		swap(`"model":"gpt-5.4",`, ``),
		swap(`,"items":[`, `,"other":[`),
		swap(`"items":[{},`, `"items":{"a":[{},`) + "}",
		// Strings.
		swap(`"pi-1-2"`, `""`),
		swap(`"pi-1-2"`, `"pi 1"`),
		swap(`"pi-1-2"`, `"pi\t1"`),
		swap(`"pi-1-2"`, `"pi-\u0031"`),
		swap(`"pi-1-2"`, `"pi-é"`),
		swap(`"pi-1-2"`, `"pi-\u00ad"`),
		swap(`"pi-1-2"`, `"`+strings.Repeat("r", 256)+`"`),
		swap(`"pi-1-2"`, `"`+strings.Repeat("r", 257)+`"`),
		swap(`"pi-1-2"`, `7`),
		swap(`"s 1"`, `""`),
		swap(`"s 1"`, `"s\u0001"`),
		swap(`"s 1"`, `"`+strings.Repeat("s", 256)+`"`),
		swap(`"s 1"`, `"`+strings.Repeat("s", 257)+`"`),
		swap(`"github-copilot"`, `"github copilot"`),
		swap(`"gpt-5.4"`, `"gpt/5.4~!"`),
		swap(`"gpt-5.4"`, `null`),
		swap(`"chat"`, `"compaction"`),
		swap(`"chat"`, `"title"`),
		swap(`"chat"`, `"session-title"`),
		swap(`"chat"`, `"classifier"`),
		swap(`"chat"`, `"Chat"`),
		swap(`"chat"`, `"c\u0068at"`),
		swap(`"chat"`, `null`),
		// Integers.
		swap(`"turn":3`, `"turn":0`),
		swap(`"turn":3`, `"turn":-1`),
		swap(`"turn":3`, `"turn":03`),
		swap(`"turn":3`, `"turn":3.0`),
		swap(`"turn":3`, `"turn":3.5`),
		swap(`"turn":3`, `"turn":3e0`),
		swap(`"turn":3`, `"turn":9007199254740991`),
		swap(`"turn":3`, `"turn":9007199254740992`),
		swap(`"turn":3`, `"turn":"3"`),
		swap(`"step":1`, `"step":0`),
		swap(`"step":1`, `"step":2`),
		// Items.
		swap(`"items":[{},{"type"`, `"items":[{"type"`),
		swap(`"items":[{},{"type":"reasoning","id":true,"sha256":"`+digestA+`","units":14007},{"type":"function_call","id":true},{"type":"function_call_output"}]`, `"items":[]`),
		swap(`"items":[{},{"type"`, `"items":[ { } , {"type"`),
		item(`7`),
		item(`null`),
		item(`[]`),
		item(`{"type":"function_call_output","extra":true}`),
		item(`{"type":"function_call_output","status":"completed"}`),
		item(`{"type":"function_call_output","type":"message"}`),
		item(`{"typ\u0065":"function_call_output"}`),
		item(`{"type":""}`),
		item(`{"type":"a b"}`),
		item(`{"type":"é"}`),
		item(`{"type":"\n"}`),
		item(`{"type":"func\u0074ion_call_output"}`),
		item(`{"type":"` + strings.Repeat("t", 256) + `"}`),
		item(`{"type":"` + strings.Repeat("t", 257) + `"}`),
		item(`{"type":7}`),
		item(`{"id":false}`),
		item(`{"id":1}`),
		item(`{"id":"true"}`),
		item(`{"id":true,"id":true}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `"}`),
		item(`{"type":"reasoning","units":1}`),
		item(`{"type":"reasoning","sha256":"` + strings.ToUpper(digestA) + `","units":1}`),
		item(`{"type":"reasoning","sha256":"` + digestA[:63] + `","units":1}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `0","units":1}`),
		item(`{"type":"reasoning","sha256":"` + digestA[:63] + `g","units":1}`),
		item(`{"type":"reasoning","sha256":"` + digestA[:63] + `\u0061","units":1}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `","sha256":"` + digestA + `","units":1}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `","units":0}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `","units":1099511627776}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `","units":1099511627777}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `","units":14007.0}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `","units":1.4007e4}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `","units":-5}`),
		item(`{"type":"reasoning","sha256":"` + digestA + `","units":"5"}`),
		item(`{"type":"reasoning","sha256":null,"units":5}`),
	}
	return out
}

// TestCanonicalDigestParamsAgreeWithTheSchema holds the canonical reader
// to the schema: whatever it accepts, the schema accepts and the slow
// decoder reads the same; and readDigestParams refuses exactly what the
// schema refuses, with -32602.
func TestCanonicalDigestParamsAgreeWithTheSchema(t *testing.T) {
	accepted, refused, slow := 0, 0, 0
	for _, doc := range digestParamVariants() {
		raw := []byte(doc)
		schemaErr := uicontract.Validate(digestParamsSchema, raw)
		req, items, ok := readCanonical(raw)
		if ok {
			if schemaErr != nil {
				t.Errorf("canonical but refused by the schema (%v):\n%s", schemaErr, clip(doc))
				continue
			}
			wantReq, wantItems, err := decodeDigestParams(raw)
			if err != nil || !reflect.DeepEqual(req, wantReq) || !reflect.DeepEqual(items, wantItems) {
				t.Errorf("the canonical reader and the decoder disagree (%v):\n%s", err, clip(doc))
			}
		}
		_, _, err := readDigestParams(raw)
		var pe *protocolError
		switch {
		case schemaErr == nil && err != nil:
			t.Errorf("valid under the schema but refused (%v):\n%s", err, clip(doc))
		case schemaErr != nil && (!errors.As(err, &pe) || pe.code != wire.CodeInvalidParams):
			t.Errorf("refused by the schema (%v) but answered %v:\n%s", schemaErr, err, clip(doc))
		case schemaErr != nil:
			refused++
		case ok:
			accepted++
		default:
			slow++
		}
	}
	// Each way through must have been taken, or the table tests less than it says.
	if accepted < 10 || refused < 30 || slow < 5 {
		t.Fatalf("accepted canonically %d, refused %d, accepted through the schema %d", accepted, refused, slow)
	}
}

// TestDigestParamsUnknownMembersAreRefused: the reviewer's case — an
// unknown member at the top or in an item is invalid params, named.
func TestDigestParamsUnknownMembersAreRefused(t *testing.T) {
	for _, doc := range []string{
		strings.Replace(canonicalDigestParams, `"purpose":"chat",`, `"purpose":"chat","extra":true,`, 1),
		strings.Replace(canonicalDigestParams, `{"type":"function_call","id":true}`, `{"type":"function_call","id":true,"call_id":"c"}`, 1),
	} {
		_, _, err := readDigestParams([]byte(doc))
		var pe *protocolError
		if !errors.As(err, &pe) || pe.code != wire.CodeInvalidParams || !strings.Contains(pe.msg, "additional") {
			t.Errorf("answered %v to\n%s", err, doc)
		}
	}
}

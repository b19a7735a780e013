package server

import (
	"reflect"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/jsonscan"
	"github.com/continuity-dev/continuity/turns"
	"github.com/continuity-dev/continuity/wire"
)

// canonicalPayloadParams is llm/payload's params as DSH's bridge and the
// bench write them.
const canonicalPayloadParams = `{"requestId":"r1.1","sessionId":"bench session","turn":3,"step":1,"provider":"github-copilot-preview",` +
	`"model":"gpt-5.4","payload":{"model":"gpt-5.4","input":[{"type":"message","content":"x"}]}}`

// payloadParamVariants are params around the canonical form: each changes
// one thing, across every rule of the fast reader and past every bound of
// the schema.
func payloadParamVariants() []string {
	base := canonicalPayloadParams
	swap := func(old, new string) string {
		if !strings.Contains(base, old) {
			panic("no " + old)
		}
		return strings.Replace(base, old, new, 1)
	}
	return []string{base,
		// Members.
		swap(`"step":1,`, `"step":1,"purpose":"chat",`),
		swap(`"step":1,`, `"step":1,"purpose":"compaction","compactionId":"c1",`),
		swap(`"step":1,`, `"step":1,"retryOf":"r0",`),
		swap(`"step":1,`, `"step":1,"extra":1,`),
		swap(`"step":1,`, `"step":1,"RequestId":"other",`),
		swap(`"step":1,`, `"step":1,"purpose":"chat","purpose":"chat",`),
		swap(`"requestId"`, `"request\u0049d"`),
		swap(`"payload"`, `"p\u0061yload"`),
		swap(`"requestId":"r1.1",`, ``),
		swap(`"sessionId":"bench session",`, ``),
		swap(`"turn":3,`, ``),
		swap(`"step":1,`, ``),
		swap(`"provider":"github-copilot-preview",`, ``),
		swap(`"model":"gpt-5.4","payload"`, `"payload"`),
		swap(`,"payload":{"model":"gpt-5.4","input":[{"type":"message","content":"x"}]}`, ``),
		swap(`"payload":{"model"`, `"retryOf":"r0","payload":{"model"`),
		swap(`"input":[{"type":"message","content":"x"}]}}`, `"input":[]},"retryOf":"r0"}`),
		swap(`"input":[{"type":"message","content":"x"}]}}`, `"input":[]},"turn":4}`),
		swap(`{"model":"gpt-5.4","input":[{"type":"message","content":"x"}]}`, `[{"model":"gpt-5.4"}]`),
		swap(`{"model":"gpt-5.4","input":[{"type":"message","content":"x"}]}`, `null`),
		swap(`{"model":"gpt-5.4","input":[{"type":"message","content":"x"}]}`, `"text"`),
		swap(`"requestId":"r1.1",`, ` "requestId" : "r1.1" , `),
		// Strings.
		swap(`"r1.1"`, `""`),
		swap(`"r1.1"`, `"r 1"`),
		swap(`"r1.1"`, `"r\t1"`),
		swap(`"r1.1"`, `"r\u0031"`),
		swap(`"r1.1"`, `"r-é"`),
		swap(`"r1.1"`, `"r-\u00ad"`),
		swap(`"r1.1"`, `"`+strings.Repeat("r", 256)+`"`),
		swap(`"r1.1"`, `"`+strings.Repeat("r", 257)+`"`),
		swap(`"r1.1"`, `7`),
		swap(`"r1.1"`, `null`),
		swap(`"bench session"`, `""`),
		swap(`"bench session"`, `"s\u0001"`),
		swap(`"bench session"`, `"`+strings.Repeat("s", 256)+`"`),
		swap(`"bench session"`, `"`+strings.Repeat("s", 257)+`"`),
		swap(`"github-copilot-preview"`, `"github copilot"`),
		swap(`"gpt-5.4","payload"`, `"gpt/5.4~!","payload"`),
		swap(`"gpt-5.4","payload"`, `null,"payload"`),
		swap(`"step":1,`, `"step":1,"compactionId":"",`),
		swap(`"step":1,`, `"step":1,"compactionId":"c 1",`),
		swap(`"step":1,`, `"step":1,"retryOf":"`+strings.Repeat("r", 257)+`",`),
		swap(`"step":1,`, `"step":1,"purpose":"title",`),
		swap(`"step":1,`, `"step":1,"purpose":"session-title",`),
		swap(`"step":1,`, `"step":1,"purpose":"classifier",`),
		swap(`"step":1,`, `"step":1,"purpose":"Chat",`),
		swap(`"step":1,`, `"step":1,"purpose":"c\u0068at",`),
		swap(`"step":1,`, `"step":1,"purpose":null,`),
		swap(`"step":1,`, `"step":1,"purpose":"",`),
		// Integers.
		swap(`"turn":3`, `"turn":0`),
		swap(`"turn":3`, `"turn":null`),
		swap(`"turn":3`, `"turn":-1`),
		swap(`"turn":3`, `"turn":3.0`),
		swap(`"turn":3`, `"turn":3.5`),
		swap(`"turn":3`, `"turn":3e0`),
		swap(`"turn":3`, `"turn":9007199254740991`),
		swap(`"turn":3`, `"turn":9007199254740992`),
		swap(`"turn":3`, `"turn":"3"`),
		swap(`"turn":3`, `"turn":true`),
		swap(`"step":1`, `"step":0`),
		swap(`"step":1`, `"step":2`),
		swap(`"step":1`, `"step":null`),
		swap(`"step":1`, `"step":1.0`),
		swap(`"step":1`, `"step":9007199254740991`),
		swap(`"step":1`, `"step":9007199254740992`),
	}
}

// splitSlow is splitParams without the fast readers: the envelope always
// goes through the schema and encoding/json.
func splitSlow(params *wire.Params, lm largeMember) (turns.PayloadRequest, []byte, error) {
	saved := fastEnvelopes
	fastEnvelopes = nil
	defer func() { fastEnvelopes = saved }()
	return splitParams[turns.PayloadRequest](params, lm)
}

// TestFastPayloadEnvelopeAgreesWithTheSchema holds the fast reader to the
// schema: whatever it accepts, the schema accepts and the slow decoder
// reads the same head; and splitParams answers every variant exactly as
// it does without the fast reader (the same head and payload, or the same
// error).
func TestFastPayloadEnvelopeAgreesWithTheSchema(t *testing.T) {
	lm := largeMember{method: "llm/payload", schema: "wire/llm/payload.params", name: "payload", anyValue: true}
	fast, refused, slow := 0, 0, 0
	for _, doc := range payloadParamVariants() {
		params := paramsOf(t, doc)
		wantHead, wantPayload, wantErr := splitSlow(params, lm)

		raw := params.Bytes()
		sc := jsonscan.Scanner{B: raw, Trusted: true}
		members, err := sc.Members(nil)
		if err != nil {
			t.Fatalf("%v:\n%s", err, clip(doc))
		}
		large := -1
		for k, m := range members {
			if sc.NameIs(m, "payload") {
				large = k
			}
		}
		var head turns.PayloadRequest
		ok := fastPayloadEnvelope(raw, members, large, &head)
		if ok && (wantErr != nil || !reflect.DeepEqual(head, wantHead)) {
			t.Errorf("the fast reader read %+v, the schema and decoder %+v (%v):\n%s", head, wantHead, wantErr, clip(doc))
		}

		gotHead, gotPayload, gotErr := splitParams[turns.PayloadRequest](params, lm)
		switch {
		case (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error():
			t.Errorf("splitParams answered %v, without the fast reader %v:\n%s", gotErr, wantErr, clip(doc))
		case !reflect.DeepEqual(gotHead, wantHead) || string(gotPayload) != string(wantPayload):
			t.Errorf("splitParams read %+v, without the fast reader %+v:\n%s", gotHead, wantHead, clip(doc))
		case wantErr != nil:
			refused++
		case ok:
			fast++
		default:
			slow++
		}
	}
	// Each way through must have been taken, or the table tests less than it says.
	if fast < 15 || refused < 25 || slow < 5 {
		t.Fatalf("read fast %d, refused %d, accepted through the schema %d", fast, refused, slow)
	}
}

// TestSplitParamsStepsOverLongStrings: with the frame's long strings
// (wire.Params.Long) the members after a payload holding them are found
// exactly as without, the payload is still a view of the frame, and the
// frame did record the strings (or the test would prove nothing).
func TestSplitParamsStepsOverLongStrings(t *testing.T) {
	long := strings.Repeat(`ab\"c}{][\\`, 8<<10) // > jsonscan.LongString, full of what a search would trip on
	payload := `{"input":[{"type":"message","content":"` + long + `"},{"type":"message","content":"` + long + `"}]}`
	lm := largeMember{method: "llm/payload", schema: "wire/llm/payload.params", name: "payload", anyValue: true}
	for _, doc := range []string{
		`{"requestId":"r","sessionId":"s","turn":1,"step":1,"provider":"p","model":"m","payload":` + payload + `,"retryOf":"r0"}`,
		`{"requestId":"r","sessionId":"s","turn":1,"step":1,"provider":"p","model":"m","payload":` + payload + `,"extra":"` + long + `"}`,
		`{"requestId":"r","sessionId":"s","turn":1,"step":1,"provider":"p","model":"m","payload":` + payload + `,"model":"again"}`,
	} {
		params := paramsOf(t, doc)
		if params.Long().Len() == 0 {
			t.Fatal("the frame's long strings were not recorded")
		}
		head, got, err := splitParams[turns.PayloadRequest](params, lm)
		wantHead, want, wantErr := splitParams[turns.PayloadRequest](paramsWithoutLong(t, params), lm)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() || head != wantHead || string(got) != string(want) {
			t.Errorf("with the long strings %+v %v, without %+v %v", head, err, wantHead, wantErr)
		}
		if err == nil && (string(got) != payload || offsetIn(params.Bytes(), got) < 0) {
			t.Errorf("the payload is copied or wrong (%d bytes)", len(got))
		}
	}
}

// paramsWithoutLong is another frame of the same params whose long
// strings are retired, as the wire retires them before a buffer carries
// another frame: a scan of it finds every string's end by searching.
func paramsWithoutLong(t *testing.T, p *wire.Params) *wire.Params {
	t.Helper()
	q := paramsOf(t, string(p.Bytes()))
	q.Long().Retire()
	return q
}

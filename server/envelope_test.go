package server

import (
	"reflect"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/jsonscan"
)

func TestSessionEventEnvelope(t *testing.T) {
	for _, c := range []struct {
		name, params, err, headerErr string
		seq                          int64
	}{
		{name: "DSH's first event", params: `{"sessionId":"s","event":{"type":"agent/inbox/spliced","seq":0,"time":0,"data":{"target":"next-turn"}}}`},
		{name: "unknown members and types", seq: 7, params: `{"sessionId":"s","extra":[1],"event":{"type":"plugin:goal","seq":7,"ignorable":true,"sourceEventSeqs":[3],"data":{"x":1}}}`},
		{name: "escaped names", seq: 1, params: `{"session\u0049d":"s","event":{"typ\u0065":"turn/start","seq":1}}`},
		{name: "no session", params: `{"event":{"type":"turn/start","seq":1}}`, err: "sessionId"},
		{name: "event not an object", params: `{"sessionId":"s","event":[]}`, err: "event is not an object"},
		{name: "no type", params: `{"sessionId":"s","event":{"seq":1}}`, err: "event.type"},
		{name: "negative seq", params: `{"sessionId":"s","event":{"type":"t","seq":-1}}`, err: "event.seq"},
		{name: "fractional seq", params: `{"sessionId":"s","event":{"type":"t","seq":1.5}}`, err: "event.seq"},
		{name: "string seq", params: `{"sessionId":"s","event":{"type":"t","seq":"1"}}`, err: "event.seq"},
		{name: "a header that does not read", seq: 2, params: `{"sessionId":"s","event":{"type":"t","seq":2},"header":{"createdAt":"soon"}}`, headerErr: "header does not read"},
		{name: "sessionId twice", params: `{"sessionId":"nobody","sessionId":"s","event":{"type":"t","seq":1}}`, err: `"sessionId" appears more than once`},
		{name: "seq twice", params: `{"sessionId":"s","event":{"type":"t","seq":1,"s\u0065q":2}}`, err: `event."seq" appears more than once`},
		{name: "a lone surrogate in sessionId", params: `{"sessionId":"s\ud800","event":{"type":"t","seq":1}}`, err: "lone surrogate"},
		{name: "duplicates inside data are the features' business", seq: 3, params: `{"sessionId":"s","event":{"type":"t","seq":3,"data":{"a":1,"a":2}}}`},
		{name: "a header that is not an object", seq: 2, params: `{"sessionId":"s","event":{"type":"t","seq":2},"header":5}`, headerErr: "not an object"},
	} {
		ev, headerErr, err := readSessionEvent([]byte(c.params), jsonscan.Spans{})
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
			continue
		case c.headerErr != "" && (headerErr == nil || !strings.Contains(headerErr.Error(), c.headerErr)):
			t.Errorf("%s: header error %v, want %q", c.name, headerErr, c.headerErr)
		case c.headerErr == "" && headerErr != nil:
			t.Errorf("%s: header error %v", c.name, headerErr)
		}
		if ev.Event.Seq != c.seq || ev.SessionID != "s" {
			t.Errorf("%s: %+v", c.name, ev)
		}
	}
	ev, _, err := readSessionEvent([]byte(`{"sessionId":"s","event":{"type":"tool/result","seq":4,"data":{"message":{"content":"big"}} ,"surfaceOp":{"op":"replace","startSeq":1,"endSeq":2}},"header":{"version":0,"createdAt":5}}`), jsonscan.Spans{})
	if err != nil || string(ev.Event.Data) != `{"message":{"content":"big"}}` || string(ev.Event.SurfaceOp) != `{"op":"replace","startSeq":1,"endSeq":2}` ||
		ev.Header == nil || ev.Header.IsSeeded || *ev.Header.CreatedAt != 5 {
		t.Fatalf("%+v %v", ev, err)
	}
}

// TestSessionEventEnvelopeWithSpans: the envelope of a large tool/result
// reads the same given the frame's long strings (its output stepped over
// in O(1)) as without them, and the event carries the spans on.
func TestSessionEventEnvelopeWithSpans(t *testing.T) {
	text := strings.Repeat(`ok \tpkg\t0.1s\n\"x\" \u00e9 `, jsonscan.LongString/8)
	frame := []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s","event":{"type":"tool/result","seq":9,"time":3,` +
		`"data":{"message":{"content":[{"type":"text","text":"` + text + `"}]}},"surfaceOp":"append"},"header":{"createdAt":5}}}`)
	var v jsonscan.Validator
	v.Write(frame)
	if _, err := v.End(nil); err != nil {
		t.Fatal(err)
	}
	long := v.Long(frame)
	if long.Len() != 1 {
		t.Fatalf("%d spans, want 1", long.Len())
	}
	params := frame[len(`{"jsonrpc":"2.0","method":"session.event","params":`) : len(frame)-1]
	with, hw, ew := readSessionEvent(params, long)
	without, ho, eo := readSessionEvent(params, jsonscan.Spans{})
	if ew != nil || eo != nil || hw != nil || ho != nil {
		t.Fatal(ew, eo, hw, ho)
	}
	if with.Event.Long.Len() != 1 || without.Event.Long.Len() != 0 {
		t.Fatalf("the event carries %d spans, want 1", with.Event.Long.Len())
	}
	with.Event.Long = jsonscan.Spans{}
	if !reflect.DeepEqual(with, without) || string(with.Event.Data) != `{"message":{"content":[{"type":"text","text":"`+text+`"}]}}` {
		t.Fatalf("with spans %+v, without %+v", with.Event, without.Event)
	}
}

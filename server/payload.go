package server

import (
	"context"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/jsonscan"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/turns"
	"github.com/continuity-dev/continuity/wire"
)

type omitted struct {
	Items       int `json:"items"`
	CodeUnits   int `json:"codeUnits"`
	StrippedIDs int `json:"strippedIds"`
}

// payloadParams is llm/payload's params as its entry read them: the
// envelope decoded, and the payload a view of the frame that the handler
// only borrows (the entry borrows: the frame is released once the reply
// is written).
type payloadParams struct {
	req     turns.PayloadRequest
	payload []byte
	frame   *wire.Params
	// follow is the filtering that followed the payload while its frame
	// arrived (followPayload), nil when none did; the frame owns it.
	follow *filter.Followed
}

// readPayloadParams reads llm/payload's params on the request's goroutine
// (the entry is deferred: the read loop only checks that they are an
// object), without decoding the payload (splitParams): the envelope is
// validated and decoded like any other params, and the payload stays the
// host's original bytes.
func readPayloadParams(params *wire.Params) (payloadParams, error) {
	req, payload, err := splitParams[turns.PayloadRequest](params,
		largeMember{method: "llm/payload", schema: "wire/llm/payload.params", name: "payload", anyValue: true})
	if err != nil {
		return payloadParams{}, err
	}
	// A payload that is JSON but not an object is the body's fault, not
	// the envelope's: it is INVALID_PAYLOAD, as the DSH Copilot plugin's
	// filter answers, once the envelope is valid.
	if payload[0] != '{' {
		return payloadParams{}, diag.New(diag.InvalidPayload, "payload must be a JSON object (an OpenAI Responses request body)")
	}
	if req.Purpose == "" {
		// DSH leaves GenerateOptions.purpose unset for a chat call.
		req.Purpose = "chat"
	}
	p := payloadParams{req: req, payload: payload, frame: params}
	if pf, ok := params.Follower().(*payloadFollower); ok {
		p.follow = pf.f
	}
	return p, nil
}

// llmPayload borrows its params: a filtered result is written straight
// from the slices of the payload that it keeps (a wire.RawResult), and the
// retry record that still borrows them takes its copy before the
// dispatcher releases the frame (BeforeRelease).
//
// Boundary work waits while the payload is answered (holdForPayload):
// the hold ends when the frame is released, after the reply.
func (s *Server) llmPayload(ctx context.Context, p payloadParams) (any, error) {
	svc := s.svc()
	if svc.decider != nil && p.frame != nil {
		p.frame.BeforeRelease(svc.decider.holdForPayload())
	}
	res, err := svc.turns.PayloadFollowed(ctx, p.req, p.payload, p.follow)
	if p.follow != nil {
		p.follow.Close() // its goroutines end now; the frame's release would close it too
		if followAnswered != nil {
			followAnswered(p.follow.Taken())
		}
	}
	if err != nil {
		return nil, err
	}
	p.frame.BeforeRelease(res.Detach)
	out := wire.Object().Set("outcome", res.Outcome)
	if res.Output != nil {
		out.Raw("payload", res.Output...)
	}
	return out.Set("omitted", omitted{Items: res.Omitted.Items, CodeUnits: res.Omitted.CodeUnits, StrippedIDs: res.Omitted.StrippedIDs}).
		Set("sha256", res.Hex()).Result()
}

// followFrom is how much of an llm/payload frame must have arrived before
// it is filtered while the rest arrives (wire.Config.FollowFrom). A 1 MiB
// payload is followed: its frame lands in one or two reads, and the wire
// validates a followed frame in pieces, so the filter's work overlaps the
// validation instead of waiting behind it (on two cores the round trip's
// p50 fell by 0.2–0.5 ms of about 2.2). Below it the follow's extra goroutines
// (scan, hash, walk) cost more than the little overlap a small payload
// offers; at 64 MiB following takes a third off the round trip.
var followFrom = 512 << 10

// followAnswered, when set (tests), is told of each followed llm/payload
// once it is answered whether the followed work answered it.
var followAnswered func(taken bool)

// followPayload is the wire's FollowFunc: an llm/payload frame whose
// params' payload object has begun is filtered while it arrives
// (filter.FollowPayload), speculatively: the handler uses that work only
// for a valid frame whose payload is exactly the object followed, and
// takes every decision and effect itself (turns.Manager.PayloadFollowed).
func followPayload(method string, buf []byte, params int, strs jsonscan.Spans) wire.Follower {
	if method != "llm/payload" {
		return nil
	}
	at, ok := payloadStart(buf[params:])
	if !ok {
		return nil
	}
	at += params
	// The wire shows a follower only bytes it has validated (wire.Follower),
	// so the following scan trusts them: the frame is validated once, and
	// what the validation learned of the long strings (strs: the
	// ciphertexts' ends, whether each is plain) is not learned again.
	return &payloadFollower{at: at, f: filter.FollowPayload(buf[at:cap(buf)], filter.Options{Prevalidated: true}, strs)}
}

// payloadStart finds, in the arrived prefix b of llm/payload's params,
// the offset of the payload member's value when it is an object; every
// member before it must be whole in b.
func payloadStart(b []byte) (int, bool) {
	sc := jsonscan.Scanner{B: b}
	if len(b) == 0 || b[0] != '{' {
		return 0, false
	}
	for i := sc.WS(1); i < len(b) && b[i] == '"'; {
		keyEnd, v, err := sc.Key(i)
		if err != nil || v >= len(b) {
			return 0, false
		}
		if sc.StrIs(b[i:keyEnd], "payload") {
			return v, b[v] == '{'
		}
		end, err := sc.Value(v)
		if err != nil || end >= len(b) {
			return 0, false
		}
		if i = sc.WS(end); i >= len(b) || b[i] != ',' {
			return 0, false
		}
		i = sc.WS(i + 1)
	}
	return 0, false
}

// payloadFollower is a Followed as the wire sees it: offsets in the
// frame's buffer, the payload object starting at at.
type payloadFollower struct {
	at int
	f  *filter.Followed
}

func (p *payloadFollower) Arrived(n int) {
	if n > p.at {
		p.f.Arrived(n - p.at)
	}
}

func (p *payloadFollower) Finish(n int) { p.f.Finish(max(n-p.at, 0)) }
func (p *payloadFollower) Close()       { p.f.Close() }

package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkAgentRequest times the agent/request round trip on its own,
// with nothing between requests but the events that start them: a later
// step of one turn (the admission exists) and the first step of a new
// turn (the policy is resolved from the settings). The light case of
// BenchmarkRequestBehindBigToolResult is the later step behind a result.
//
//	go test -run '^$' -bench 'AgentRequest$' -benchmem -cpuprofile cpu.out ./server/
func BenchmarkAgentRequest(b *testing.B) {
	for _, newTurn := range []bool{false, true} {
		name := "step"
		if newTurn {
			name = "turn"
		}
		b.Run(name, func(b *testing.B) {
			p := startOSPipe(b)
			if _, e := p.call(b, "initialize", `{"protocolVersion":"1","host":{"name":"pi","version":"1"},"capabilities":{},"payloadProviders":["github-copilot"]}`); e != nil {
				b.Fatal(string(e))
			}
			p.event(b, 0, "session/created", `{}`)
			p.event(b, 1, "turn/start", `{"turn":1}`)
			seq, turn, step := 1, 1, 0
			for i := 0; b.Loop(); i++ {
				step++
				if newTurn && i > 0 {
					seq++
					p.event(b, seq, "turn/end", fmt.Sprintf(`{"turn":%d,"reason":{"kind":"completed"}}`, turn))
					turn, step = turn+1, 1
					seq++
					p.event(b, seq, "turn/start", fmt.Sprintf(`{"turn":%d}`, turn))
				}
				seq++
				p.event(b, seq, "step/start", fmt.Sprintf(`{"turn":%d,"step":%d}`, turn, step))
				res, e := p.call(b, "agent/request", fmt.Sprintf(`{"sessionId":"s","turn":%d,"step":%d,"requestId":"r%d","config":{"provider":"github-copilot","model":"m"}}`, turn, step, i))
				if e != nil || !strings.Contains(string(res), `"enabled":true`) {
					b.Fatalf("admission %s %s", res, e)
				}
			}
		})
	}
}

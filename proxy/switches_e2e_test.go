package proxy_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// switchTurns are turns 2–4 of the A → B → B → A account-switch tests:
// switched marks a turn whose account differs from the previous turn's.
var switchTurns = []struct {
	token, account string
	switched       bool
}{{tokenB, "acct-B", true}, {tokenB, "acct-B", false}, {tokenA, "acct-A", true}}

// playSwitches plays switchTurns with a client that has made turn 1 as A;
// run continues the client's session through base as token. Where the
// account switches, the turn is first sent directly to the supplier, which
// must reject it for another account's reasoning — and, when clientSaw is
// set, the client must have shown that. Each turn through the proxy must
// then be accepted with every tool step (tool) keeping the turn's
// reasoning.
func playSwitches(t *testing.T, sup *supplier.Server, px *running, tool supplier.Answer,
	run func(base, token, prompt string) (string, error), clientSaw func(out string, err error) bool) {
	t.Helper()
	for i, step := range switchTurns {
		if step.switched {
			n := len(sup.Requests())
			out, err := run(sup.URL(), step.token, "direct "+strconv.Itoa(i))
			direct := since(sup, n)
			if clientSaw != nil && !clientSaw(out, err) ||
				len(direct) == 0 || direct[0].Status != 400 || !strings.HasPrefix(direct[0].Problem, "foreign") {
				t.Fatalf("turn %d sent directly as %s was not rejected: %v %s\n%s", i+2, step.account, err, lastProblem(direct), out)
			}
		}
		sup.Script(tool)
		n := len(sup.Requests())
		if out, err := run(px.URL, step.token, "turn "+strconv.Itoa(i+2)); err != nil {
			t.Fatalf("turn %d through the proxy: %v\n%s", i+2, err, out)
		}
		checkTurn(t, since(sup, n), step.account, 2)
	}
}

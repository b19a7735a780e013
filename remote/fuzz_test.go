package remote

import (
	"strings"
	"testing"
)

// FuzzInvokeArgs: any args to any method answer with an envelope (never a
// panic), and whatever is refused is refused before the host is asked or
// settings are written. Seeds hold issue 18's shapes: huge numbers, lone
// surrogates and duplicated members.
func FuzzInvokeArgs(f *testing.F) {
	methods := []string{"get", "set", "authorizeNext", "defaults", "setDefault", "nope"}
	for i, s := range []string{
		`{"agentId":"fresh","revision":1e1000001,"enabled":true}`,
		`{"agentId":"fresh\ud800"}`,
		`{"agentId":"nobody","agentId":"fresh"}`,
		`{"revision":1,"revision":0,"enabled":false}`,
		`{"agentId":"fresh","revision":1,"enabled":null}`,
		`null`, ``, `{}`,
	} {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		r := newRig(t)
		lookups := r.agents.calls
		got := r.call(methods[int(which)%len(methods)], string(args))
		if !strings.HasPrefix(got, `{"ok":`) {
			t.Fatalf("not an envelope: %s", got)
		}
		if strings.Contains(got, `"arguments-invalid"`) && r.agents.calls != lookups {
			t.Fatalf("refused args reached the host: %s", got)
		}
	})
}

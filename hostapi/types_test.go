package hostapi

import (
	"encoding/json"
	"testing"
)

func TestHeaderSeedingInBothFormats(t *testing.T) {
	for _, c := range []struct {
		in     string
		seeded bool
	}{
		{`{"createdAt":5,"isSeeded":false}`, false},
		{`{"createdAt":5,"isSeeded":true}`, true},
		{`{"createdAt":5}`, true},
		{`{"type":"session","version":0,"id":"a","createdAt":5,"cwd":"/w","delegationDepth":0}`, false},
		{`{"type":"session","version":0,"id":"a","createdAt":5,"seedLength":3}`, true},
		{`{"version":4,"createdAt":5,"isSeeded":false,"seedLength":3}`, false},
	} {
		var h SessionHeader
		if err := json.Unmarshal([]byte(c.in), &h); err != nil {
			t.Fatal(err)
		}
		if h.IsSeeded != c.seeded || h.CreatedAt == nil || *h.CreatedAt != 5 {
			t.Fatalf("%s: got %+v", c.in, h)
		}
	}
}

package hostapi

import (
	"encoding/json"
	"testing"
)

func TestHeaderWithoutIsSeededCountsAsSeeded(t *testing.T) {
	for _, c := range []struct {
		in     string
		seeded bool
	}{
		{`{"createdAt":5,"isSeeded":false}`, false},
		{`{"createdAt":5,"isSeeded":true}`, true},
		{`{"createdAt":5}`, true},
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

package proxy

import (
	"context"
	"net/http"
	"testing"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// BenchmarkReadKeys is the scan that places a request the filter does not
// follow (a compressed one, once decoded), next to the filter on the same
// 16 MiB body: placing must stay a small part of the proxy's added time
// to first byte. A followed body is placed from the filter's own scan.
func BenchmarkReadKeys(b *testing.B) {
	gen := payloadgen.Generate(payloadgen.Typical(16 << 20)).Body
	body := append([]byte(`{"prompt_cache_key":"bench",`), gen[1:]...)
	b.Run("readKeys", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for range b.N {
			if k, err := readKeys(http.Header{}, body); err != nil || k.session != "bench" {
				b.Fatal("no session")
			}
		}
	})
	b.Run("filter", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for range b.N {
			if _, err := filter.Select(context.Background(), body, filter.Options{StripPairedIDs: true, NoCopy: true}, nil,
				func(filter.Candidate) bool { return false }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package jsonscan

import (
	"sync"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// The payload kinds of the bench (filter/payloadgen): reasoning (base64
// ciphertexts), ordinary (tool outputs full of escapes and non-ASCII text,
// images) and typical (a real agent turn), at 16 MiB.
//
//	go test -run '^$' -bench 'Validator$|Scanner' ./jsonscan
var benchKinds = []struct {
	name string
	spec payloadgen.Spec
}{
	{"reasoning", payloadgen.ReasoningHeavy(16<<20, 1024)},
	{"ordinary", payloadgen.Ordinary(16 << 20)},
	{"typical", payloadgen.Typical(16 << 20)},
}

var (
	benchOnce   sync.Once
	benchBodies map[string][]byte
)

func benchBody(name string) []byte {
	benchOnce.Do(func() {
		benchBodies = map[string][]byte{}
		for _, k := range benchKinds {
			benchBodies[k.name] = payloadgen.Generate(k.spec).Body
		}
	})
	return benchBodies[name]
}

// BenchmarkValidator feeds each payload to a Validator in 64 KiB reads, as
// the wire's read loop does with a pipe.
func BenchmarkValidator(b *testing.B) {
	for _, k := range benchKinds {
		b.Run(k.name, func(b *testing.B) {
			doc := benchBody(k.name)
			var v Validator
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				v.Reset()
				for at := 0; at < len(doc); at += 64 << 10 {
					v.Write(doc[at:min(at+64<<10, len(doc))])
				}
				if _, err := v.End(nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScanner is the validating Scanner's Members over each payload
// on one goroutine (no split: the per-core speed), the trusted scan, and
// the trusted scan with the Validator's spans (as the wire's readers and
// followers scan: the long strings stepped over, the rest — names, types,
// ids, short text — read).
func BenchmarkScanner(b *testing.B) {
	for _, k := range benchKinds {
		for _, mode := range []string{"validating", "trusted", "spans"} {
			b.Run(k.name+"/"+mode, func(b *testing.B) {
				doc := benchBody(k.name)
				from := parallelFrom
				parallelFrom = 1 << 62
				defer func() { parallelFrom = from }()
				var long Spans
				if mode == "spans" {
					var v Validator
					v.Write(doc)
					if _, err := v.End(nil); err != nil {
						b.Fatal(err)
					}
					long = v.Long(doc)
				}
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					s := Scanner{B: doc, Trusted: mode != "validating", Long: long}
					if _, err := s.Members(nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkVersusReference measures, interleaved in one run (so that the
// load of a shared machine hits both alike), the Validator fed in 64 KiB
// reads and the validating Scanner's Members on one goroutine against the
// reference copies of both as they were before (ref_test.go), over each
// payload kind. It reports each one's MB/s and new/ref speed-up.
//
//	go test -run '^$' -bench VersusReference ./jsonscan
func BenchmarkVersusReference(b *testing.B) {
	from := parallelFrom
	parallelFrom = 1 << 62
	defer func() { parallelFrom = from }()
	for _, k := range benchKinds {
		doc := benchBody(k.name)
		var v Validator
		var rv refValidator
		fed := func(write func([]byte)) {
			for at := 0; at < len(doc); at += 64 << 10 {
				write(doc[at:min(at+64<<10, len(doc))])
			}
		}
		pairs := []struct {
			name     string
			new, ref func()
		}{
			{"validator", func() {
				v.Reset()
				fed(v.Write)
				if _, err := v.End(nil); err != nil {
					b.Fatal(err)
				}
			}, func() {
				rv.Reset()
				fed(rv.Write)
				if _, err := rv.End(nil); err != nil {
					b.Fatal(err)
				}
			}},
			{"scanner", func() {
				s := Scanner{B: doc}
				if _, err := s.Members(nil); err != nil {
					b.Fatal(err)
				}
			}, func() {
				s := refScanner{B: doc}
				if _, err := s.Members(nil); err != nil {
					b.Fatal(err)
				}
			}},
		}
		for _, p := range pairs {
			b.Run(k.name+"/"+p.name, func(b *testing.B) {
				var tn, tr time.Duration
				for b.Loop() {
					start := time.Now()
					p.new()
					mid := time.Now()
					p.ref()
					tn, tr = tn+mid.Sub(start), tr+time.Since(mid)
				}
				mb := float64(len(doc)) * float64(b.N) / 1e6
				b.ReportMetric(mb/tn.Seconds(), "MB/s-new")
				b.ReportMetric(mb/tr.Seconds(), "MB/s-ref")
				b.ReportMetric(float64(tr)/float64(tn), "x-ref")
			})
		}
	}
}

package filter

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/jsonscan"
	"github.com/tidwall/gjson"
)

// The benchmarks measure the docs/design.md §6 bars in one run: each filter
// benchmark also measures its reference (SHA-256 over the same ciphertext,
// or an encoding/json decode-filter-encode of the same payload) in the same
// process and reports the ratio, so machines and runs compare fairly.
//
//	go test -run '^$' -bench . -benchmem ./filter

var benchSpecs = map[string]payloadgen.Spec{
	"reasoning64MiB": payloadgen.ReasoningHeavy(64<<20, 4096),
	"ordinary64MiB":  payloadgen.Ordinary(64 << 20),
	"typical1MiB":    payloadgen.Typical(1 << 20),
}

var (
	benchMu      sync.Mutex
	benchCache   = map[string]payloadgen.Payload{}
	benchRefRate = map[string]float64{}
)

func benchPayload(name string) payloadgen.Payload {
	benchMu.Lock()
	defer benchMu.Unlock()
	p, ok := benchCache[name]
	if !ok {
		p = payloadgen.Generate(benchSpecs[name])
		benchCache[name] = p
	}
	return p
}

// rate measures bytes per CPU second of fn over n bytes, once per key, by
// running it for at least 300 ms of CPU time.
func rate(key string, n int, fn func()) float64 {
	benchMu.Lock()
	defer benchMu.Unlock()
	if r, ok := benchRefRate[key]; ok {
		return r
	}
	fn() // warm up
	start, runs := cpuTime(), 0
	for cpuTime()-start < 300*time.Millisecond {
		fn()
		runs++
	}
	r := float64(n) * float64(runs) / (cpuTime() - start).Seconds()
	benchRefRate[key] = r
	return r
}

// shaRate is single-core SHA-256 throughput over the payload's ciphertexts.
func shaRate(name string, p payloadgen.Payload) float64 {
	return rate("sha:"+name, p.CipherBytes(), func() { hashCiphers(p) })
}

func hashCiphers(p payloadgen.Payload) {
	for _, c := range p.Ciphers {
		sha256.Sum256(p.Body[c[0]:c[1]])
	}
}

// jsonRate is the throughput of the encoding/json way to do the same job.
func jsonRate(name string, p payloadgen.Payload) float64 {
	return rate("json:"+name, len(p.Body), func() {
		if _, err := jsonFilter(p.Body); err != nil {
			panic(err)
		}
	})
}

// jsonFilter is the straightforward encoding/json filter the bars compare
// against: decode the body and its items (keeping values raw, its cheapest
// form), drop reasoning whose ciphertext SHA-256 is in the baseline (the
// first call's baseline is all of it), and encode the result.
func jsonFilter(body []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(top["input"], &items); err != nil {
		return nil, err
	}
	kept := items[:0]
	for _, raw := range items {
		var it struct {
			Type             string `json:"type"`
			EncryptedContent string `json:"encrypted_content"`
		}
		if err := json.Unmarshal(raw, &it); err != nil {
			return nil, err
		}
		if it.Type == "reasoning" {
			sha256.Sum256([]byte(it.EncryptedContent))
			continue
		}
		kept = append(kept, raw)
	}
	in, err := json.Marshal(kept)
	if err != nil {
		return nil, err
	}
	top["input"] = in
	return json.Marshal(top)
}

// benchFilter measures the first call of a turn on a generated payload and
// reports, besides MB/s and allocations, its CPU-time throughput relative
// to the references ("x-sha256" must be ≥ 0.6 for reasoning64MiB,
// "x-encoding/json" ≥ 10 for ordinary64MiB) and its allocated bytes per
// payload byte ("alloc/payload" ≤ 1.2). CPU time, not wall time, keeps the
// ratios honest on a machine shared with other work.
func benchFilter(b *testing.B, name string, opts Options) {
	p := benchPayload(name)
	ctx := context.Background()
	b.SetBytes(int64(len(p.Body)))
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc0, cpu0 := ms.TotalAlloc, cpuTime()
	b.ResetTimer()
	for b.Loop() {
		if _, err := NewTurn(opts).Apply(ctx, p.Body, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.TotalAlloc-alloc0)/float64(b.N)/float64(len(p.Body)), "alloc/payload")
	self := float64(len(p.Body)) * float64(b.N) / cpu.Seconds()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	if len(p.Ciphers) > 0 {
		b.ReportMetric(self/shaRate(name, p), "x-sha256")
	}
	b.ReportMetric(self/jsonRate(name, p), "x-encoding/json")
}

func BenchmarkFilter(b *testing.B) {
	for _, name := range []string{"reasoning64MiB", "ordinary64MiB", "typical1MiB"} {
		b.Run(name, func(b *testing.B) { benchFilter(b, name, Options{StripPairedIDs: true}) })
		b.Run(name+"/prevalidated", func(b *testing.B) {
			benchFilter(b, name, Options{StripPairedIDs: true, Prevalidated: true})
		})
	}
}

// BenchmarkFilterKept is a later step of a turn whose reasoning is all new:
// everything is hashed and kept, and the final sum covers the whole payload.
func BenchmarkFilterKept(b *testing.B) {
	p := benchPayload("reasoning64MiB")
	turn := NewTurn(Options{StripPairedIDs: true})
	if _, err := turn.Apply(context.Background(), []byte(`{"input":[]}`), nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p.Body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := turn.Apply(context.Background(), p.Body, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSHA256 is the reference: SHA-256 over the same ciphertexts.
func BenchmarkSHA256(b *testing.B) {
	for _, name := range []string{"reasoning64MiB", "typical1MiB"} {
		b.Run(name, func(b *testing.B) {
			p := benchPayload(name)
			b.SetBytes(int64(p.CipherBytes()))
			b.ReportAllocs()
			for b.Loop() {
				hashCiphers(p)
			}
		})
	}
}

// BenchmarkEncodingJSON is the reference decode-filter-encode.
func BenchmarkEncodingJSON(b *testing.B) {
	for _, name := range []string{"ordinary64MiB", "typical1MiB"} {
		b.Run(name, func(b *testing.B) {
			p := benchPayload(name)
			b.SetBytes(int64(len(p.Body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jsonFilter(p.Body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGJSON measures the gjson route the filter does not take, on the
// same payloads: gjson.Valid, and ForEach over input reading each item's
// type and ciphertext. Both walk strings a byte at a time, which is why the
// filter has its own scanner (see skip.go).
func BenchmarkGJSON(b *testing.B) {
	for _, name := range []string{"reasoning64MiB", "ordinary64MiB"} {
		p := benchPayload(name)
		view := unsafe.String(unsafe.SliceData(p.Body), len(p.Body))
		b.Run(name+"/Valid", func(b *testing.B) {
			b.SetBytes(int64(len(p.Body)))
			for b.Loop() {
				if !gjson.Valid(view) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run(name+"/ForEach", func(b *testing.B) {
			b.SetBytes(int64(len(p.Body)))
			for b.Loop() {
				n := 0
				gjson.Get(view, "input").ForEach(func(_, it gjson.Result) bool {
					if it.Get("type").Str == "reasoning" && it.Get("encrypted_content").Index > 0 {
						n++
					}
					return true
				})
				if n != len(p.Ciphers) {
					b.Fatalf("found %d reasoning items, want %d", n, len(p.Ciphers))
				}
			}
		})
	}
}

// BenchmarkFollowed is the plugin's path for a turn's first payload on
// the wire: the frame is fed in 64 KiB reads to a Validator (the read
// loop's validation), which publishes its spans before each read is
// reported to a Followed payload (prevalidated, as the wire follows it),
// and ApplyFollowed takes the result once the frame is in. It reports the
// process's CPU time per op: the read loop's validation, the following
// scan, the hashing and the final sum together. Compare with
// BenchmarkFilter/NAME/prevalidated (the filter alone) in the same run.
func BenchmarkFollowed(b *testing.B) {
	for _, name := range []string{"reasoning64MiB", "ordinary64MiB"} {
		b.Run(name, func(b *testing.B) {
			p := benchPayload(name)
			src, n := followFrame(p.Body)
			frame := make([]byte, len(followPrefix)+len(src))
			buf := frame[len(followPrefix):]
			b.SetBytes(int64(len(p.Body)))
			b.ReportAllocs()
			var v jsonscan.Validator
			cpu0 := cpuTime()
			for b.Loop() {
				v.Reset()
				v.Write(frame[:copy(frame, followPrefix)])
				f := FollowPayload(buf, Options{Prevalidated: true}, v.Follow(frame))
				for at := 0; at < n; at += 64 << 10 {
					step := min(n-at, 64<<10)
					copy(buf[at:at+step], src[at:at+step])
					v.Write(buf[at : at+step])
					v.Publish()
					f.Arrived(at + step)
				}
				f.Finish(n)
				if _, err := NewTurn(Options{StripPairedIDs: true, Prevalidated: true}).ApplyFollowed(context.Background(), f, buf[:len(p.Body)], nil); err != nil {
					b.Fatal(err)
				}
				if !f.Taken() {
					b.Fatal("the followed work was not taken")
				}
				f.Close()
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

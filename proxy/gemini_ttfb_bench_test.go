package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/filter/gemini"
	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/sqlstore"
)

// BenchmarkGeminiTTFB drives bench's Gemini request of 1 and 16 MiB
// through continuity's proxy and through a plain httputil.ReverseProxy to
// a loopback upstream that reads the whole body before it answers, and
// times filter/gemini's own Scan and Select of the same body: each
// sub-benchmark's ns/op is its time to the answer's first byte, so proxy
// minus plain is the added time bench's Gemini rows hold against filter.
// Its CPU profile (-cpuprofile) is where the proxy's added time goes.
func BenchmarkGeminiTTFB(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"candidates\":[]}\r\n\r\n")
	}))
	b.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0)
	plain := httptest.NewServer(rp)
	b.Cleanup(plain.Close)
	ours := httptest.NewServer(benchProxy(b, u))
	b.Cleanup(ours.Close)
	client := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(client.CloseIdleConnections)
	for _, size := range []int{1 << 20, 16 << 20} {
		body := payloadgen.GeminiHistory(size) // the bench rows' body
		for _, s := range []struct {
			name string
			base string
		}{{"plain", plain.URL}, {"proxy", ours.URL}} {
			b.Run(fmt.Sprintf("%dMiB/%s", size>>20, s.name), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				defer cpuPerOp(b)()
				for b.Loop() {
					benchPost(b, client, s.base+"/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse", body)
				}
			})
		}
		b.Run(fmt.Sprintf("%dMiB/filter", size>>20), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			defer cpuPerOp(b)()
			for b.Loop() {
				doc, err := gemini.Scan(body)
				if err == nil {
					_, err = doc.Select(context.Background(), func(gemini.Candidate) bool { return false })
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cpuPerOp reports the process's CPU time (user and system, every
// goroutine: client, proxy and upstream alike) per iteration as cpu-ns/op
// when the returned func is called: on a shared machine the work a change
// removes shows there when wall-clock times are noise.
func cpuPerOp(b *testing.B) func() {
	start, ok := processCPU()
	return func() {
		if end, _ := processCPU(); ok {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// benchPost sends body with a key and times nothing itself: the loop's
// time is the time to the answer's first byte, the rest of the answer
// read outside it.
func benchPost(b *testing.B, client *http.Client, to string, body []byte) {
	req, _ := http.NewRequest(http.MethodPost, to, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer bench")
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var one [1]byte
	if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	b.StartTimer()
}

// benchProxy is a proxy to up with the policy on, as bench starts it.
func benchProxy(b *testing.B, up *url.URL) *Proxy {
	store, err := settings.OpenFileStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	pol := settings.NewPolicy(store)
	if err := pol.Activate(context.Background()); err != nil {
		b.Fatal(err)
	}
	db, err := sqlstore.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	later := time.Now().Add(time.Second) // sessions are born after the activation
	p, err := New(Config{Upstream: up, Policy: pol, DB: db, Secret: "bench-secret-0123456789",
		Now: func() time.Time { return later }})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

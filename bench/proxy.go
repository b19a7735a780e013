package bench

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/filter/payloadgen"
	"github.com/continuity-dev/continuity/proxy"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/sqlstore"
)

// ProxyRow compares `continuity proxy` with a plain httputil.ReverseProxy
// on the same requests of one body size, measured alternately in this run:
// times to first byte (medians), the filter's own time on the body, and the
// bytes the proxy allocated per body byte.
type ProxyRow struct {
	// Front is "gemini" for Gemini generateContent bodies, "" for
	// Responses bodies.
	Front        string  `json:"front,omitempty"`
	Size         int     `json:"size"`
	Runs         int     `json:"runs"`
	PlainTTFBNs  int64   `json:"plainTtfbNs"`
	ProxyTTFBNs  int64   `json:"proxyTtfbNs"`
	FilterNs     int64   `json:"filterNs"`
	AddedNs      int64   `json:"addedNs"`
	AllocPerByte float64 `json:"allocPerByte"`
}

// ProxyStream is the streaming case: one long SSE answer through each, at
// the best time of its runs (noise only adds time).
type ProxyStream struct {
	Bytes     int     `json:"bytes"`
	Runs      int     `json:"runs"`
	PlainMBps float64 `json:"plainMBps"`
	ProxyMBps float64 `json:"proxyMBps"`
	Ratio     float64 `json:"ratio"` // proxy over plain throughput
}

// proxyPair is a plain ReverseProxy and continuity's proxy in front of one
// upstream, all on loopback in this process.
type proxyPair struct {
	up, plain, ours *httptest.Server
	db              *sql.DB      // the proxy's continuity.db
	px              *proxy.Proxy // continuity's proxy, for its body budget's peak
	client          *http.Client
}

// longAnswer is the request header that asks the pair's upstream for the
// long stream. A header rather than a path, so that the request is one
// the proxy filters (…/responses) and its answer goes through the
// proxy's response tap, as a real Responses stream does.
const longAnswer = "X-Bench-Answer"

// startProxyPair serves the pair; the upstream reads every body and
// answers a short stream, or long when the request has longAnswer.
func startProxyPair(tmp string, long []byte) (*proxyPair, error) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if r.Header.Get(longAnswer) == "long" {
			_, _ = w.Write(long)
			return
		}
		_, _ = w.Write([]byte("event: response.created\ndata: {\"type\":\"response.created\"}\n\n"))
	}))
	u, _ := url.Parse(up.URL)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0)
	dir := filepath.Join(tmp, "proxy-settings")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		up.Close()
		return nil, err
	}
	store, err := settings.OpenFileStore(dir)
	if err != nil {
		up.Close()
		return nil, err
	}
	pol := settings.NewPolicy(store)
	if err := pol.Activate(context.Background()); err != nil {
		up.Close()
		return nil, err
	}
	db, err := sqlstore.Open(filepath.Join(tmp, "proxy-data"))
	if err != nil {
		up.Close()
		return nil, err
	}
	later := time.Now().Add(time.Second) // sessions are born after the activation
	px, err := proxy.New(proxy.Config{Upstream: u, Policy: pol, DB: db, Secret: "bench-secret-0123456789",
		Now: func() time.Time { return later }})
	if err != nil {
		db.Close()
		up.Close()
		return nil, err
	}
	return &proxyPair{up: up, plain: httptest.NewServer(rp), ours: httptest.NewServer(px), db: db, px: px,
		client: &http.Client{Transport: &http.Transport{}}}, nil
}

func (p *proxyPair) close() {
	defer p.db.Close()
	p.client.CloseIdleConnections()
	p.plain.Close()
	p.ours.Close()
	p.up.Close()
}

// post sends body as a session's request and returns the time to the first
// byte of the answer and to its end.
func (p *proxyPair) post(base, path string, body []byte) (first, all time.Duration, err error) {
	return p.send(base, path, body, false)
}

// send is post, asking for the long answer when long.
func (p *proxyPair) send(base, path string, body []byte, long bool) (first, all time.Duration, err error) {
	start := time.Now()
	req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer bench")
	if long {
		req.Header.Set(longAnswer, "long")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	var one [1]byte
	if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
		return 0, 0, err
	}
	first = time.Since(start)
	_, err = io.Copy(io.Discard, resp.Body)
	return first, time.Since(start), err
}

// proxyRows measures the proxy comparison of cfg.ProxySizes and the
// streaming case.
func (r *runner) proxyRows() error {
	if len(r.cfg.ProxySizes) == 0 {
		return nil
	}
	var long bytes.Buffer
	delta := `{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"` +
		strings.Repeat("x", 64) + `","logprobs":[]}`
	for long.Len() < r.cfg.ProxyStreamBytes {
		long.WriteString("event: response.output_text.delta\ndata: " + delta + "\n\n")
	}
	pair, err := startProxyPair(r.tmp, long.Bytes())
	if err != nil {
		return err
	}
	defer pair.close()
	runs := max(3, r.cfg.Runs)
	for _, size := range r.cfg.ProxySizes {
		r.logf("bench: proxy       %8s  continuity proxy vs httputil.ReverseProxy", FormatSize(size))
		row, err := pair.ttfb(size, runs)
		if err != nil {
			return err
		}
		r.rep.Proxy = append(r.rep.Proxy, row)
	}
	for _, size := range r.cfg.ProxySizes {
		r.logf("bench: proxy       %8s  Gemini, continuity proxy vs httputil.ReverseProxy", FormatSize(size))
		row, err := pair.geminiTTFB(size, runs)
		if err != nil {
			return err
		}
		r.rep.Proxy = append(r.rep.Proxy, row)
	}
	r.logf("bench: proxy       %8s  SSE stream", FormatSize(long.Len()))
	body := []byte(`{"prompt_cache_key":"bench","input":[{"role":"user","content":"q"}]}`)
	best := map[*httptest.Server]time.Duration{}
	dropped := 0
	for i := range runs {
		// Alternate which goes first, so neither gains from warm caches.
		order := []*httptest.Server{pair.plain, pair.ours}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, s := range order {
			d, err := pair.stream(s.URL, "/v1/responses", body, &dropped)
			if err != nil {
				return err
			}
			if b, ok := best[s]; !ok || d < b {
				best[s] = d
			}
		}
	}
	mb := float64(long.Len()) / 1e6
	plain, ours := best[pair.plain], best[pair.ours]
	r.rep.ProxyStream = &ProxyStream{Bytes: long.Len(), Runs: runs, PlainMBps: mb / plain.Seconds(),
		ProxyMBps: mb / ours.Seconds(), Ratio: plain.Seconds() / ours.Seconds()}
	if dropped > 0 {
		r.note(fmt.Sprintf("proxy stream: %d samples were measured again after a loopback connection dropped mid-stream", dropped))
	}
	if r.cfg.ProxySessions > 0 {
		return r.concurrentRow(pair)
	}
	return nil
}

// stream times one long answer through base, asked for on path. A
// sample whose connection drops mid-stream is measured again, at most
// twice, and counted in dropped. (Seen on loaded machines through the
// plain ReverseProxy and continuity's passthrough, whose transports
// report "use of closed network connection" reading the upstream; not
// through the filtered path.)
func (p *proxyPair) stream(base, path string, body []byte, dropped *int) (time.Duration, error) {
	for try := 0; ; try++ {
		_, d, err := p.send(base, path, body, true)
		if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) || try == 2 {
			return d, err
		}
		*dropped++
	}
}

// ttfb measures one body size: plain and proxy alternately, the filter on
// the same body, and the proxy's allocations.
func (p *proxyPair) ttfb(size, runs int) (ProxyRow, error) {
	gen := payloadgen.Generate(payloadgen.Typical(size)).Body
	body := append([]byte(`{"prompt_cache_key":"bench",`), gen[1:]...)
	filt := func() error {
		_, err := filter.Select(context.Background(), body, filter.Options{StripPairedIDs: true, NoCopy: true}, nil,
			func(filter.Candidate) bool { return false })
		if err != nil {
			return fmt.Errorf("bench: filter: %w", err)
		}
		return nil
	}
	row, err := p.sampleTTFB("/v1/responses", body, runs, filt)
	row.Size = size
	return row, err
}

// sampleTTFB times body through the plain proxy and continuity's, and
// filter alone, runs times each. Which of the three goes first turns with
// each run, and the collector runs before each sample: a 16 MiB body
// leaves as much garbage, and whichever sample came after it would pay
// for its collection.
func (p *proxyPair) sampleTTFB(path string, body []byte, runs int, filter func() error) (ProxyRow, error) {
	var plain, ours, filt []int64
	var allocs uint64
	var ms runtime.MemStats
	for i := range runs {
		for k := range 3 {
			runtime.GC()
			switch (i + k) % 3 {
			case 0:
				d, _, err := p.post(p.plain.URL, path, body)
				if err != nil {
					return ProxyRow{}, err
				}
				plain = append(plain, d.Nanoseconds())
			case 1:
				runtime.ReadMemStats(&ms)
				before := ms.TotalAlloc
				d, _, err := p.post(p.ours.URL, path, body)
				if err != nil {
					return ProxyRow{}, err
				}
				runtime.ReadMemStats(&ms)
				allocs += ms.TotalAlloc - before
				ours = append(ours, d.Nanoseconds())
			case 2:
				start := time.Now()
				if err := filter(); err != nil {
					return ProxyRow{}, err
				}
				filt = append(filt, time.Since(start).Nanoseconds())
			}
		}
	}
	row := ProxyRow{Runs: runs, PlainTTFBNs: median(plain), ProxyTTFBNs: median(ours), FilterNs: median(filt),
		AllocPerByte: float64(allocs) / float64(runs) / float64(len(body))}
	row.AddedNs = row.ProxyTTFBNs - row.PlainTTFBNs
	return row, nil
}

// median of the samples (which it sorts).
func median(s []int64) int64 {
	slices.Sort(s)
	return s[len(s)/2]
}

// proxyBars are the goals for the proxy, from this run's rows.
func proxyBars(rep *Report) []Bar {
	var out []Bar
	for _, row := range rep.Proxy {
		sz := FormatSize(row.Size)
		if row.Front != "" {
			sz = row.Front + " " + sz
		}
		limit := row.FilterNs + int64(proxyTTFBSlack)
		out = append(out, Bar{Name: "proxy added time to first byte, " + sz, Want: "≤ the filter's time + 1 ms",
			Pass: row.AddedNs <= limit, Got: fmt.Sprintf("%s added (plain %s, proxy %s, filter %s)",
				signedDur(row.AddedNs), dur(row.PlainTTFBNs), dur(row.ProxyTTFBNs), dur(row.FilterNs)),
			Value: ms(row.AddedNs), Limit: ms(limit), Unit: UnitMs},
			Bar{Name: "proxy memory per request, " + sz, Want: "≤ 2× the body",
				Pass: row.AllocPerByte <= proxyAllocMax, Got: fmt.Sprintf("%.2f× the body allocated", row.AllocPerByte),
				Value: row.AllocPerByte, Limit: proxyAllocMax, Unit: UnitRatio})
	}
	out = append(out, concurrentBars(rep.ProxyConcurrent)...)
	if s := rep.ProxyStream; s != nil {
		out = append(out, Bar{Name: "proxy SSE throughput, " + FormatSize(s.Bytes), Want: fmt.Sprintf("≥ %.2f× a plain ReverseProxy", proxyStreamMin),
			Pass: s.Ratio >= proxyStreamMin, Got: fmt.Sprintf("%.2f× (%.0f vs %.0f MB/s)", s.Ratio, s.ProxyMBps, s.PlainMBps),
			Value: s.Ratio, Limit: proxyStreamMin, Unit: UnitRatio, HigherIsBetter: true})
	}
	return out
}

// logf writes a progress line when the run has a log.
func (r *runner) logf(format string, a ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, format+"\n", a...)
	}
}

// signedDur is dur for a difference, which noise can make negative.
func signedDur(ns int64) string {
	if ns < 0 {
		return "-" + dur(-ns)
	}
	return dur(ns)
}

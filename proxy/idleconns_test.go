package proxy

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestBurstOfSessionsKeepsUpstreamConns: upstreamIdleConns sessions
// answered at once, and then again, reach the upstream over the
// connections the first burst opened: none is closed as its answer ends
// and dialled (a TLS handshake, upstream) again in front of the next
// request's first byte.
func TestBurstOfSessionsKeepsUpstreamConns(t *testing.T) {
	var dialled atomic.Int64
	var arrived sync.WaitGroup
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived.Done()
		arrived.Wait() // every session's request is open at once, each on its own connection
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: response.created\ndata: {\"type\":\"response.created\"}\n\n")
	}))
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialled.Add(1)
		}
	}
	up.Start()
	t.Cleanup(up.Close)
	_, srv := newTestProxy(t, up.URL, "")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: upstreamIdleConns}}
	t.Cleanup(client.CloseIdleConnections)
	burst := func() {
		arrived.Add(upstreamIdleConns)
		var wg sync.WaitGroup
		errs := make([]error, upstreamIdleConns)
		for i := range upstreamIdleConns {
			wg.Go(func() {
				body := fmt.Sprintf(`{"prompt_cache_key":"s%d","input":[]}`, i)
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/responses", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer k")
				resp, err := client.Do(req)
				if err != nil {
					errs[i] = err
					return
				}
				defer resp.Body.Close()
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					errs[i] = err
				} else if resp.StatusCode != http.StatusOK {
					errs[i] = fmt.Errorf("status %d", resp.StatusCode)
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	burst()
	if n := dialled.Load(); n != upstreamIdleConns {
		t.Fatalf("the first burst opened %d upstream connections, want %d", n, upstreamIdleConns)
	}
	burst()
	if n := dialled.Load() - upstreamIdleConns; n != 0 {
		t.Fatalf("the second burst opened %d more upstream connections, want none", n)
	}
}

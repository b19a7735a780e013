//go:build linux && !race

// Not under -race: internal/testbin builds the proxy with the race
// detector then, whose shadow memory multiplies the process's resident
// size (a 500 MiB body peaked at 1.58 GiB), so the figures would measure
// the detector. scripts/test runs these on the ordinary build.

package proxy_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// zstdBomb is a Responses request whose one user message holds size bytes
// of "a", zstd-compressed to some KiB; withSize writes the frame's content
// size, as Codex's and most encoders' single-shot compression does.
func zstdBomb(t *testing.T, session string, size int, withSize bool) []byte {
	t.Helper()
	head := []byte(`{"model":"gpt-5.4","stream":true,"prompt_cache_key":"` + session + `","input":[{"role":"user","content":"`)
	tail := []byte(`"}]}`)
	var out bytes.Buffer
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	if withSize {
		enc.ResetContentSize(&out, int64(len(head)+size+len(tail)))
	} else {
		enc.Reset(&out)
	}
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	_, _ = enc.Write(head)
	for left := size; left > 0; left -= len(chunk) {
		_, _ = enc.Write(chunk[:min(left, len(chunk))])
	}
	_, _ = enc.Write(tail)
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// peakRSS is the process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// postBomb sends a zstd body as account A and returns the status, the
// error code of a proxy error and the Retry-After header.
func postBomb(t *testing.T, px *running, body []byte) (status int, code, retry string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, px.URL+"/v1/responses", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tokenA)
	req.Header.Set("Content-Encoding", "zstd")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		code = string(b)
	}
	return resp.StatusCode, code, resp.Header.Get("Retry-After")
}

const mib = 1 << 20

// TestDecompressionBombs (R1), measured on the real process's peak
// resident memory (VmHWM): a zstd body of some KiB that decodes to 500 MiB
// is forwarded with a peak of at most 1.5× its decoded size; one that
// decodes past the 512 MiB bound is refused 413 before it is decoded,
// whether it declares its size or not, costing next to nothing; eight at
// once under --body-budget stay within the budget, each answered or
// refused by name (503 BODY_BUDGET_EXHAUSTED with Retry-After).
//
// Not parallel: the figures are the process's own, and other tests'
// memory would not move them, but their CPU would slow the decodes past
// the budget's wait.
func TestDecompressionBombs(t *testing.T) {
	rec := startRecorder(t)
	px := startProxy(t, rec.srv.URL, "")
	base := peakRSS(t, px.PID)

	for _, withSize := range []bool{true, false} {
		st, code, _ := postBomb(t, px, zstdBomb(t, "over-bound", 600*mib, withSize))
		if st != http.StatusRequestEntityTooLarge || !strings.Contains(code, "REQUEST_TOO_LARGE") {
			t.Fatalf("600 MiB decoded (size declared %v): %d %s", withSize, st, code)
		}
	}
	if grew := peakRSS(t, px.PID) - base; grew > 64*mib {
		t.Fatalf("refusing two 600 MiB bombs raised the peak by %d MiB", grew/mib)
	}
	// A plain body declared past the bound is refused before it is read.
	conn := dialProxy(t, px)
	if _, err := io.WriteString(conn, "POST /v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+tokenA+
		"\r\nContent-Length: "+strconv.Itoa(600*mib)+"\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a plain body declared as 600 MiB: %v %v", resp, err)
	}
	t.Logf("refused 600 MiB bombs: peak %d MiB (start %d MiB)", peakRSS(t, px.PID)/mib, base/mib)

	bomb := zstdBomb(t, "bomb", 500*mib, true)
	if st, code, _ := postBomb(t, px, bomb); st != 200 {
		t.Fatalf("a 500 MiB body of %d KiB: %d %s", len(bomb)>>10, st, code)
	}
	peak := peakRSS(t, px.PID)
	t.Logf("one 500 MiB body (%d KiB compressed): peak %d MiB (start %d MiB)", len(bomb)>>10, peak/mib, base/mib)
	if peak-base > 750*mib {
		t.Fatalf("one 500 MiB body took the peak to %d MiB from %d MiB: more than 1.5× its decoded size", peak/mib, base/mib)
	}
	px.Stop()

	// Eight at once, of a size the budget holds two of; their size is not
	// declared, so each is counted, then decoded.
	const budget = 512 * mib
	px = startProxy(t, rec.srv.URL, "", "--body-budget", "512MiB", "--body-budget-wait", "60s")
	base = peakRSS(t, px.PID)
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for i := range 8 {
		body := zstdBomb(t, "many-"+strconv.Itoa(i), 200*mib, false)
		wg.Go(func() {
			st, code, retry := postBomb(t, px, body)
			key := strconv.Itoa(st)
			if st == http.StatusServiceUnavailable && strings.Contains(code, "BODY_BUDGET_EXHAUSTED") && retry != "" {
				key = "503 BODY_BUDGET_EXHAUSTED"
			}
			mu.Lock()
			outcomes[key]++
			mu.Unlock()
		})
	}
	wg.Wait()
	peak = peakRSS(t, px.PID)
	t.Logf("eight 200 MiB bodies at once, budget 512 MiB: %v, peak %d MiB (start %d MiB)", outcomes, peak/mib, base/mib)
	if outcomes["200"]+outcomes["503 BODY_BUDGET_EXHAUSTED"] != 8 || outcomes["200"] < 2 {
		t.Fatalf("eight at once: %v", outcomes)
	}
	// The budget bounds the bodies held (two of these at once, 400 MiB);
	// the process's peak also holds the compressed bodies, buffers not yet
	// collected and the runtime's own, for which the binary gives the
	// runtime a memory limit of the budget plus 256 MiB. Past that limit
	// the budget is not what bounds the process.
	if limit := int64(budget + 256*mib); peak-base > limit {
		t.Fatalf("eight at once took the peak to %d MiB from %d MiB, past the %d MiB budget plus the runtime's 256 MiB", peak/mib, base/mib, budget/mib)
	}
}

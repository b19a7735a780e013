package proxy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// chromiumPath is Debian's chromium, installed by scripts/setup.d/30-chromium.sh.
const chromiumPath = "/usr/bin/chromium"

// browser is a headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: NUL-terminated JSON on fds 3 and 4), so
// the test needs no WebSocket client and opens no debugging port.
type browser struct {
	t        *testing.T
	cmd      *exec.Cmd
	toChrome *os.File
	mu       sync.Mutex
	next     int
	waiting  map[int]chan cdpReply
	done     chan struct{} // closed when the reader goroutine ends
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser launches chromium with a fresh profile and the given extra
// flags, and stops it when the test ends.
func startBrowser(t *testing.T, flags ...string) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s is missing (%v): run scripts/setup.d/30-chromium.sh (apt-get install chromium)", chromiumPath, err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir(), "--remote-debugging-pipe"}, flags...)
	cmd := exec.Command(chromiumPath, append(args, "about:blank")...)
	cmd.ExtraFiles = []*os.File{inR, outW} // fd 3: commands in, fd 4: replies out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	b := &browser{t: t, cmd: cmd, toChrome: inW, waiting: map[int]chan cdpReply{}, done: make(chan struct{})}
	go b.read(outR) // ends when chromium exits and fd 4 closes
	t.Cleanup(func() {
		inW.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		<-b.done
		outR.Close()
		if t.Failed() {
			t.Logf("chromium stderr:\n%s", stderr.String())
		}
	})
	return b
}

// read delivers replies to their callers; events are ignored.
func (b *browser) read(r *os.File) {
	defer close(b.done)
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

// call sends one command (in a target's session when session is set) and
// returns its result.
func (b *browser) call(session, method string, params any) json.RawMessage {
	b.t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, _ := json.Marshal(msg)
	if _, err := b.toChrome.Write(append(raw, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			b.t.Fatalf("%s: %s", method, r.Error.Message)
		}
		return r.Result
	case <-time.After(30 * time.Second):
		b.t.Fatalf("%s: no reply from chromium", method)
	}
	return nil
}

// open navigates a new tab to url and returns its session.
func (b *browser) open(url string) string {
	b.t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	json.Unmarshal(b.call("", "Target.createTarget", map[string]any{"url": url}), &target)
	var att struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	return att.SessionID
}

// eval evaluates a JavaScript expression in the tab (awaiting a promise)
// and decodes its JSON-serialisable value into v.
func (b *browser) eval(session, expr string, v any) {
	b.t.Helper()
	res := b.call(session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		b.t.Fatal(err)
	}
	if r.Exception != nil {
		b.t.Fatalf("%s: %s", expr, r.Exception.Text)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result.Value, v); err != nil {
			b.t.Fatalf("%s: %v (%s)", expr, err, r.Result.Value)
		}
	}
}

// waitFor polls expr until it evaluates to true.
func (b *browser) waitFor(session, expr string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var ok bool
		// Until the page has loaded, expr may throw: that is "not yet".
		b.eval(session, "(() => { try { return Boolean("+expr+"); } catch (e) { return false; } })()", &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var html string
			b.eval(session, "document.body ? document.body.innerText : ''", &html)
			b.t.Fatalf("timed out waiting for %s; the page shows:\n%s", expr, html)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

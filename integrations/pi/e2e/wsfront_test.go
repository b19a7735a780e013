package e2e_test

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// wsFront is ChatGPT's Codex endpoint over WebSocket, in front of the
// supplier double: pi 1.x's openai-codex provider sends `response.create`
// frames on one connection per account, and a frame that names
// previous_response_id carries only what is new since that response. The
// front keeps, per connection, what each response held (its whole input
// and its output items) — the state the real endpoint keeps — rebuilds the
// whole request and sends it to the double, which checks every item
// against the account, then streams the double's events back as frames.
// Anything else (pi's SSE fallback) is passed to the double as it is.
type wsFront struct {
	t   *testing.T
	sup string
	srv *httptest.Server

	mu     sync.Mutex
	frames int // response.create frames received
	deltas int // of those, the ones naming previous_response_id
}

func newWSFront(t *testing.T, supplierURL string) *wsFront {
	f := &wsFront{t: t, sup: supplierURL}
	target, _ := url.Parse(supplierURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			f.serve(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *wsFront) counts() (frames, deltas int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.frames, f.deltas
}

// held is what one response left on its connection.
type held struct {
	input  []json.RawMessage
	output []json.RawMessage
}

// serve is one WebSocket connection (RFC 6455: the handshake, then
// text frames; the client masks, the server does not).
func (f *wsFront) serve(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Sec-WebSocket-Key")
	hj, ok := w.(http.Hijacker)
	if key == "" || !ok {
		http.Error(w, "not a WebSocket handshake", http.StatusBadRequest)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n")
	if rw.Flush() != nil {
		return
	}
	responses := map[string]held{}
	for {
		msg, err := readMessage(rw.Reader, conn)
		if err != nil {
			return
		}
		if err := f.create(conn, r.Header, msg, responses); err != nil {
			f.t.Logf("ws front: %v", err)
			return
		}
	}
}

// create answers one response.create frame.
func (f *wsFront) create(conn net.Conn, h http.Header, msg []byte, responses map[string]held) error {
	var body map[string]json.RawMessage
	if err := json.Unmarshal(msg, &body); err != nil {
		return err
	}
	var input []json.RawMessage
	if err := json.Unmarshal(body["input"], &input); err != nil {
		return err
	}
	f.mu.Lock()
	f.frames++
	f.mu.Unlock()
	if raw, ok := body["previous_response_id"]; ok {
		var prev string
		_ = json.Unmarshal(raw, &prev)
		was, known := responses[prev]
		if !known {
			return writeFrame(conn, 1, []byte(`{"type":"error","error":{"code":"previous_response_not_found","message":"Previous response not found on this connection."}}`))
		}
		f.mu.Lock()
		f.deltas++
		f.mu.Unlock()
		input = append(append(append([]json.RawMessage{}, was.input...), was.output...), input...)
		delete(body, "previous_response_id")
	}
	delete(body, "type")
	body["input"], _ = json.Marshal(input)
	whole, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, f.sup+"/backend-api/codex/responses", bytes.NewReader(whole))
	for _, k := range []string{"Authorization", "Chatgpt-Account-Id", "Originator", "Session_id"} {
		if v := h.Get(k); v != "" {
			req.Header.Set(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return writeFrame(conn, 1, []byte(`{"type":"error","status":`+itoa(resp.StatusCode)+`,"error":`+string(errorOf(b))+`}`))
	}
	var out []json.RawMessage
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type     string          `json:"type"`
			Item     json.RawMessage `json:"item"`
			Response struct {
				ID string `json:"id"`
			} `json:"response"`
		}
		if json.Unmarshal([]byte(data), &ev) == nil {
			switch ev.Type {
			case "response.output_item.done":
				out = append(out, ev.Item)
			case "response.completed":
				responses[ev.Response.ID] = held{input: input, output: out}
			}
		}
		if err := writeFrame(conn, 1, []byte(data)); err != nil {
			return err
		}
	}
	return sc.Err()
}

// errorOf is the error member of an error body, or the body as a message.
func errorOf(b []byte) json.RawMessage {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && len(e.Error) > 0 {
		return e.Error
	}
	m, _ := json.Marshal(map[string]string{"message": string(b)})
	return m
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// readMessage reads one whole text message, answering pings on the way.
func readMessage(rd *bufio.Reader, conn net.Conn) ([]byte, error) {
	var msg []byte
	for {
		var hdr [2]byte
		if _, err := io.ReadFull(rd, hdr[:]); err != nil {
			return nil, err
		}
		fin, op := hdr[0]&0x80 != 0, hdr[0]&0x0f
		n := uint64(hdr[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(rd, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(rd, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > 256<<20 {
			return nil, errors.New("frame too large")
		}
		var mask [4]byte
		if hdr[1]&0x80 != 0 {
			if _, err := io.ReadFull(rd, mask[:]); err != nil {
				return nil, err
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(rd, payload); err != nil {
			return nil, err
		}
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
		switch op {
		case 8:
			_ = writeFrame(conn, 8, nil)
			return nil, io.EOF
		case 9:
			if err := writeFrame(conn, 10, payload); err != nil {
				return nil, err
			}
			continue
		case 10:
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}

// writeFrame writes one unmasked frame.
func writeFrame(conn net.Conn, op byte, payload []byte) error {
	hdr := []byte{0x80 | op}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, byte(n))
	case n <= 0xffff:
		hdr = append(hdr, 126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	_, err := conn.Write(append(hdr, payload...))
	return err
}

// TestOpenAICodexOverWebSocket is ChatGPT account A → B → A through pi
// 1.6.0's openai-codex provider on its default transport, WebSocket, with
// the policy on: every turn's second step goes as a delta on the account's
// connection (previous_response_id and only the new items), every request
// the endpoint rebuilds is accepted as its account, and the first step
// after a switch carries none of the other account's reasoning.
func TestOpenAICodexOverWebSocket(t *testing.T) {
	line := piLines(t)[1]
	r, a, b := newCodexRig(t, line)
	front := newWSFront(t, r.sup.URL())
	r.write("models.json", map[string]any{"providers": map[string]any{"openai-codex": map[string]any{"baseUrl": front.srv.URL + "/backend-api"}}})
	r.activate()
	turns := []chatgpt{a, b, a}
	for i, acct := range turns {
		r.signIn(acct)
		if res := r.print("", "list the files"); res.err != nil || strings.TrimSpace(res.stdout) == "" {
			t.Fatalf("turn %d as %s: %v\nstdout:\n%s\nstderr:\n%s", i+1, acct.name, res.err, res.stdout, res.stderr)
		}
	}
	frames, deltas := front.counts()
	reqs := r.sup.Requests()
	if frames != 2*len(turns) || deltas != len(turns) || len(reqs) != frames {
		t.Fatalf("the front received %d frames (%d deltas) and the supplier %d requests; want %d frames, one delta per turn, all over WebSocket",
			frames, deltas, len(reqs), 2*len(turns))
	}
	for i, req := range reqs {
		if acct := turns[i/2]; req.Status != 200 || req.Account != acct.name {
			t.Fatalf("request %d: %d %q as %q, want accepted as %s", i+1, req.Status, req.Problem, req.Account, acct.name)
		}
	}
	for turn := 1; turn < len(turns); turn++ {
		if ids := reasoningIDs(t, reqs[2*turn].Body); len(ids) != 0 {
			t.Fatalf("turn %d step 1 carries earlier reasoning %v", turn+1, ids)
		}
	}
}

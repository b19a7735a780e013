package bench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Provider and Model are what the bench's agent/request and llm/payload
// name: the provider the filter serves (docs/design.md §2.3).
const (
	Provider = "github-copilot-preview"
	Model    = "gpt-5.4"
)

// Plugin is one continuity process with one admitted session, driven
// through a Client with DSH's events in session format 4 (seq from 0,
// turn/end with a reason object). Like a bridge in front of DSH it
// attaches the session's header, born after activation (so the
// creation-time default, on, admits its turns), to the first event it
// forwards, and it uses the plugin's embedded settings
// (capabilities.settings false), so it needs no host services at all.
type Plugin struct {
	c       *Client
	session string
	id      int64
	seq     int // the last event's seq; -1 before the first
	turn    int
	step    int
	request string
	frame   []byte // reused for every frame
	// Unexpected counts requests the plugin sent to the bench, which
	// offers no host services and answers them with -32601.
	Unexpected int
}

// PayloadReply is the part of an llm/payload result the bench checks.
// Payload is a view into the client's read buffer (nil unless the outcome
// is filtered), valid until the next call.
type PayloadReply struct {
	Outcome string
	Payload []byte
	Omitted int
	SHA256  string
}

// StartPlugin runs `binary serve --data-dir dataDir`, initializes it and
// announces a fresh session.
func StartPlugin(binary, dataDir string) (*Plugin, error) {
	c, err := StartClient(binary, "serve", "--data-dir", dataDir)
	if err != nil {
		return nil, err
	}
	return newPlugin(c, dataDir)
}

// newPlugin initializes the plugin behind c and announces the session.
func newPlugin(c *Client, dataDir string) (*Plugin, error) {
	p := &Plugin{c: c, session: "bench-session", seq: -1}
	res, err := p.call("initialize", `{"protocolVersion":"1","host":{"name":"continuity-bench","version":"1"},`+
		`"dataDir":`+strconv.Quote(dataDir)+`,"capabilities":{"settings":false,"agents":false,"sessions":false,"remoteEvents":false}}`)
	if err == nil {
		if st := gjson.Get(res, "activation.state").Str; st != "ready" {
			err = fmt.Errorf("bench: plugin activation %s", gjson.Get(res, "activation").Raw)
		}
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return p, nil
}

// NextTurn ends the current turn (if any) and starts the next one, so the
// payloads sent in it treat everything before as history.
func (p *Plugin) NextTurn() error {
	if p.turn > 0 {
		if err := p.event("turn/end", `{"turn":`+strconv.Itoa(p.turn)+`,"reason":{"kind":"completed"}}`); err != nil {
			return err
		}
	}
	p.turn++
	p.step = 0
	if err := p.event("turn/start", `{"turn":`+strconv.Itoa(p.turn)+`}`); err != nil {
		return err
	}
	return p.NextStep()
}

// NextStep starts and admits the next step of the current turn with a
// new request id.
func (p *Plugin) NextStep() error {
	p.step++
	if err := p.event("step/start", `{"turn":`+strconv.Itoa(p.turn)+`,"step":`+strconv.Itoa(p.step)+`}`); err != nil {
		return err
	}
	p.request = "r" + strconv.Itoa(p.turn) + "." + strconv.Itoa(p.step)
	res, err := p.call("agent/request", `{"sessionId":`+strconv.Quote(p.session)+`,"turn":`+strconv.Itoa(p.turn)+
		`,"step":`+strconv.Itoa(p.step)+`,"requestId":"`+p.request+`","config":{"provider":"`+Provider+`","model":"`+Model+`"}}`)
	if err != nil {
		return err
	}
	if !gjson.Get(res, "admission.enabled").Bool() {
		return fmt.Errorf("bench: turn %d was not admitted: %s", p.turn, gjson.Get(res, "admission").Raw)
	}
	return nil
}

// Payload sends payload as the current step's llm/payload and returns the
// reply and the time from the first byte written to the reply located.
// Building the frame is not timed: a host has the frame to send either way
// and the pipe-copy baseline gets the same prebuilt bytes.
func (p *Plugin) Payload(payload []byte) (PayloadReply, time.Duration, error) {
	p.id++
	p.frame = p.payloadFrame(p.frame[:0], payload)
	start := time.Now()
	line, err := p.exchange()
	if err != nil {
		return PayloadReply{}, 0, err
	}
	v := view(line)
	reply := PayloadReply{Outcome: gjson.Get(v, "result.outcome").Str}
	rest := v // where the members after the payload are looked up
	if reply.Outcome == "filtered" {
		// The plugin writes the result's members in a fixed order
		// (outcome, payload, omitted, sha256), so a lean client finds the
		// payload between the `"payload":` after outcome and the last
		// `,"omitted":` without walking its bytes.
		start := strings.Index(v, `"payload":`)
		end := strings.LastIndex(v, `,"omitted":`)
		if start < 0 || end <= start {
			return PayloadReply{}, 0, errors.New("bench: a filtered reply without a locatable payload")
		}
		reply.Payload = line[start+len(`"payload":`) : end]
		rest = `{"result":{` + v[end+1:]
	}
	elapsed := time.Since(start)
	reply.Omitted = int(gjson.Get(rest, "result.omitted.items").Int())
	reply.SHA256 = gjson.Get(rest, "result.sha256").Str
	return reply, elapsed, nil
}

// payloadFrame appends the llm/payload frame of the current step to dst.
func (p *Plugin) payloadFrame(dst, payload []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, p.id, 10)
	dst = append(dst, `,"method":"llm/payload","params":{"requestId":"`+p.request+`","sessionId":`+
		strconv.Quote(p.session)+`,"turn":`+strconv.Itoa(p.turn)+`,"step":`+strconv.Itoa(p.step)+
		`,"provider":"`+Provider+`","model":"`+Model+`","payload":`...)
	dst = append(dst, payload...)
	return append(dst, "}}\n"...)
}

// Close ends the plugin by closing its stdin.
func (p *Plugin) Close() error { return p.c.Close() }

// call sends a request with small params and returns its result.
func (p *Plugin) call(method, params string) (string, error) {
	p.id++
	p.frame = append(p.frame[:0], `{"jsonrpc":"2.0","id":`...)
	p.frame = strconv.AppendInt(p.frame, p.id, 10)
	p.frame = append(p.frame, `,"method":"`+method+`","params":`+params+"}\n"...)
	line, err := p.exchange()
	if err != nil {
		return "", fmt.Errorf("bench: %s: %w", method, err)
	}
	return gjson.Get(view(line), "result").Raw, nil
}

// event sends a session.event notification of the bench session, as
// DSH's SDK names it; the first carries the session's header.
func (p *Plugin) event(typ, data string) error {
	p.seq++
	header := ""
	if p.seq == 0 {
		born := time.Now().Add(time.Hour).UnixMilli()
		header = `,"header":{"type":"session","version":4,"id":` + strconv.Quote(p.session) + `,"createdAt":` +
			strconv.FormatInt(born, 10) + `,"isSeeded":false}`
	}
	return p.c.Write(eventFrame(p.session, typ, p.seq, data, header))
}

// eventFrame is one session.event notification line; extra is appended
// to the params object.
func eventFrame(session, typ string, seq int, data, extra string) []byte {
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	return []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":` + strconv.Quote(session) +
		`,"event":{"type":"` + typ + `","seq":` + strconv.Itoa(seq) + `,"time":` + now + `,"data":` + data + `}` + extra + "}}\n")
}

// exchange writes p.frame and returns the response to request p.id. An
// error response becomes an error carrying its message (never payload
// bytes). Requests from the plugin are answered with -32601.
func (p *Plugin) exchange() ([]byte, error) {
	want := p.id
	line, err := p.c.Exchange(p.frame, func(line []byte) bool {
		return frameID(line) == want
	}, p.refuse)
	if err != nil {
		return nil, err
	}
	// The plugin writes "id" and then "result" or "error": looking for
	// "error" in the first bytes never walks a result.
	if e := gjson.Get(view(line[:min(len(line), 4096)]), "error"); e.Exists() {
		return nil, fmt.Errorf("bench: plugin error %d: %s", e.Get("code").Int(), e.Get("message").Str)
	}
	return line, nil
}

// frameID is the numeric id of a response line, or -1 for requests and
// notifications. It looks only at the line's first bytes: the plugin
// writes "id" first and a request's "method" right after "jsonrpc", so
// the decision never walks the payload that follows.
func frameID(line []byte) int64 {
	v := view(line[:min(len(line), 512)])
	if gjson.Get(v, "method").Exists() {
		return -1
	}
	id := gjson.Get(v, "id")
	if id.Type != gjson.Number {
		return -1
	}
	return id.Int()
}

// refuse answers a plugin → host request; notifications are ignored.
func (p *Plugin) refuse(line []byte) error {
	v := view(line)
	id := gjson.Get(v, "id")
	if !gjson.Get(v, "method").Exists() || !id.Exists() {
		return nil
	}
	p.Unexpected++
	return p.c.Write([]byte(`{"jsonrpc":"2.0","id":` + id.Raw + `,"error":{"code":-32601,"message":"the bench offers no host services"}}` + "\n"))
}

package plugin_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Helpers of the DSH replay test (prefix dsh): DSH's own recorded streams,
// in fixtures/dsh-events, turned into the frames a bridge forwards.

const dshDir = "../fixtures/dsh-events"

// dshFrame is one JSON-RPC notification line a bridge sends, and the
// session and event it carries (empty for session.status and subagent.*).
type dshFrame struct {
	line    []byte
	session string
	event   gjson.Result
}

// dshStream is a recorded stream ready to forward.
type dshStream struct {
	name     string
	frames   []dshFrame
	headers  map[string][]byte // session → the header agents/get serves
	sessions []string          // in order of first appearance
}

// dshLoad reads a recorded stream; format 4 rewrites it per
// docs/protocol.md §4.3. {{sessionId}} placeholders become real ids: the
// child of subagent.started…subagent.finished gets its own.
func dshLoad(t *testing.T, file string, format int) dshStream {
	t.Helper()
	f, err := os.Open(filepath.Join(dshDir, file))
	if err != nil {
		t.Fatalf("%v (the recorded DSH streams are part of the repository)", err)
	}
	defer f.Close()
	base := strings.NewReplacer(".", "-", "_", "-").Replace(strings.TrimSuffix(file, ".jsonl"))
	parent, child := "p-"+base, "c-"+base
	st := dshStream{name: file, headers: map[string][]byte{}}
	seen := map[string]bool{}
	note := func(sid string) {
		if !seen[sid] {
			seen[sid] = true
			st.sessions = append(st.sessions, sid)
		}
	}
	storage := strings.Contains(file, "__session")
	sid := parent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for n := 0; sc.Scan(); n++ {
		line := sc.Bytes()
		switch {
		case storage && n == 0:
			st.headers[parent] = dshHeader(bytes.ReplaceAll(line, []byte(gjson.GetBytes(line, "id").Str), []byte(parent)), format)
			continue
		case storage:
			ev := dshConvert(bytes.ReplaceAll(line, []byte("{{sessionId}}"), []byte(parent)), format)
			ev = append([]byte(`{"seq":`+strconv.Itoa(n-1)+`,"time":0,`), ev[1:]...)
			st.frames = append(st.frames, dshEventFrame(parent, ev))
			note(parent)
			continue
		}
		method := gjson.GetBytes(line, "method").Str
		switch {
		case method == "subagent.started":
			line = []byte(strings.Replace(strings.Replace(string(line), `"parentSessionId":"{{sessionId}}"`, `"parentSessionId":"`+parent+`"`, 1), "{{sessionId}}", child, -1))
			sid = child
		case method == "subagent.finished":
			line = []byte(strings.Replace(strings.Replace(string(line), `"parentSessionId":"{{sessionId}}"`, `"parentSessionId":"`+parent+`"`, 1), "{{sessionId}}", child, -1))
			sid = parent
		default:
			line = bytes.ReplaceAll(line, []byte("{{sessionId}}"), []byte(sid))
		}
		if gjson.GetBytes(line, "type").Str == "session_event" {
			// Headless stream-json: the bridge forwards {sessionId, event}.
			st.frames = append(st.frames, dshEventFrame(sid, dshConvert([]byte(gjson.GetBytes(line, "event").Raw), format)))
			note(sid)
			continue
		}
		if method == "" {
			continue // the headless run's final result line
		}
		if method == "session.event" {
			ev := dshConvert([]byte(gjson.GetBytes(line, "params.event").Raw), format)
			st.frames = append(st.frames, dshEventFrame(sid, ev))
			note(sid)
			continue
		}
		// Other SDK notifications go out as they are (the snapshot tool
		// stripped "jsonrpc").
		st.frames = append(st.frames, dshFrame{line: append([]byte(`{"jsonrpc":"2.0",`), line[1:]...)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, s := range st.sessions {
		if st.headers[s] == nil {
			// A live stream carries no header: agents/get answers with
			// the session's own, born now.
			st.headers[s] = dshHeader([]byte(`{"type":"session","version":0,"id":"`+s+`","createdAt":`+
				strconv.FormatInt(dshBorn, 10)+`,"cwd":"/work","delegationDepth":0}`), format)
		}
	}
	return st
}

func dshEventFrame(sid string, ev []byte) dshFrame {
	line := []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"` + sid + `","event":` + string(ev) + `}}`)
	return dshFrame{line: line, session: sid, event: gjson.ParseBytes(ev)}
}

// dshHeader rewrites a format-0 header to format 4: isSeeded from
// seedLength, which format 4 drops.
func dshHeader(h []byte, format int) []byte {
	if format == 0 {
		return h
	}
	var m map[string]any
	if err := json.Unmarshal(h, &m); err != nil {
		panic(err)
	}
	_, seeded := m["seedLength"]
	delete(m, "seedLength")
	m["isSeeded"], m["version"] = seeded, 4
	b, _ := json.Marshal(m)
	return b
}

// dshConvert rewrites one format-0 event to format 4 (docs/protocol.md
// §4.3): the tool/result message {role:"tool", toolCallId, content,
// isError?}, surfaceOp {op:"replace", startSeq, endSeq}, and the
// checkpoint source {kind:"compact-checkpoint", compactionId}.
func dshConvert(ev []byte, format int) []byte {
	if format == 0 {
		return ev
	}
	var m map[string]any
	if err := json.Unmarshal(ev, &m); err != nil {
		panic(err)
	}
	data, _ := m["data"].(map[string]any)
	if op, ok := m["surfaceOp"].(map[string]any); ok && op["op"] == "replace" {
		m["surfaceOp"] = map[string]any{"op": "replace", "startSeq": op["start"], "endSeq": op["end"]}
	}
	switch m["type"] {
	case "tool/result":
		msg, _ := data["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		if len(blocks) == 1 {
			b := blocks[0].(map[string]any)
			next := map[string]any{"role": "tool", "id": msg["id"], "source": msg["source"], "toolCallId": b["toolCallId"], "content": b["content"]}
			if b["isError"] == true {
				next["isError"] = true
			}
			data["message"] = next
		}
	case "user/message":
		if src, _ := data["source"].(map[string]any); src["kind"] == "plugin" && src["plugin"] == "compact" {
			data["source"] = map[string]any{"kind": "compact-checkpoint", "compactionId": src["compactionId"]}
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

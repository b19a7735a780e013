package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// frame is one line the plugin wrote, as much of it as these tests read.
type frame struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params struct {
		Event string `json:"event"`
		Args  []struct {
			Kind      string `json:"kind"`
			RequestID string `json:"requestId"`
		} `json:"args"`
	} `json:"params"`
}

func readFrame(t *testing.T, out *bufio.Reader) frame {
	t.Helper()
	line, err := out.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var f frame
	if err := json.Unmarshal(line, &f); err != nil {
		t.Fatalf("frame %q: %v", line, err)
	}
	return f
}

// TestPayloadDigestAnswersBeforeItsNotice: llm/payloadDigest is answered
// in the read loop with its notices held, so the host reads the answer
// before the filtered notice the request caused, every time — and the
// notice still comes.
func TestPayloadDigestAnswersBeforeItsNotice(t *testing.T) {
	p := servePipe(t, t.TempDir())
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1","host":{"name":"pipe","version":"1"},"capabilities":{"remoteEvents":true},"payloadProviders":["github-copilot"]}}`)
	p.reply(t, 1)
	header := fmt.Sprintf(`{"createdAt":%d,"isSeeded":false}`, time.Now().Add(time.Hour).UnixMilli())
	seq := 0
	event := func(typ, data string) {
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/event","params":{"sessionId":"s","event":{"type":%q,"seq":%d,"time":1,"data":%s},"header":%s}}`, typ, seq, data, header))
		seq++
	}
	event("session/created", `{}`)
	reasoning := `{"type":"reasoning","id":true,"sha256":"` + digestOf("old") + `","units":3},{"type":"function_call","id":true}`
	id := 1
	for turn := 1; turn <= 20; turn++ {
		rid := fmt.Sprintf("r%d", turn)
		event("turn/start", fmt.Sprintf(`{"turn":%d}`, turn))
		id++
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent/request","params":{"sessionId":"s","turn":%d,"step":1,"requestId":%q,"config":{"provider":"github-copilot","model":"m"}}}`, id, turn, rid))
		f := readFrame(t, p.out)
		for ; f.ID == nil || *f.ID != id; f = readFrame(t, p.out) {
		}
		if f.Error != nil {
			t.Fatalf("turn %d: agent/request: %s", turn, f.Error)
		}
		id++
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"llm/payloadDigest","params":{"requestId":%q,"sessionId":"s","turn":%d,"step":1,"provider":"github-copilot","model":"m","items":[%s]}}`, id, rid, turn, reasoning))
		for answered := false; ; {
			f := readFrame(t, p.out)
			filtered := f.Method == "remote/event" && f.Params.Event == "continuity.notice" && len(f.Params.Args) == 1 &&
				f.Params.Args[0].RequestID == rid && f.Params.Args[0].Kind == "filtered"
			switch {
			case f.ID != nil && *f.ID == id:
				if f.Error != nil {
					t.Fatalf("turn %d: %s", turn, f.Error)
				}
				answered = true
				continue
			case filtered && !answered:
				t.Fatalf("turn %d: the filtered notice came before the answer", turn)
			case !filtered:
				continue
			}
			break
		}
		event("turn/end", fmt.Sprintf(`{"turn":%d,"reason":{"kind":"completed"}}`, turn))
	}
}

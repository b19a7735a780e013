package proxy

import (
	"io"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/filter"
)

// newTap is the tap on a Responses answer: it passes the body through
// unchanged (bodyTap) and records which account each reasoning and
// compaction item of the response was issued to, with record as each goes
// by and persist, once, for all of them when the body is closed (one
// ledger transaction). Of a stream only output_item.done events name an
// issued item, so no other event is held; of a JSON body, its output.
func newTap(body io.ReadCloser, stream bool, account Account, record func(fp [32]byte, a Account), persist func(fps [][32]byte)) *bodyTap {
	var issued [][32]byte
	item := func(it gjson.Result) {
		switch it.Get("type").Str {
		case "reasoning", "compaction":
			if c := it.Get("encrypted_content"); c.Type == gjson.String && c.Str != "" {
				fp := filter.Fingerprint(c.Str)
				record(fp, account)
				issued = append(issued, fp)
			}
		}
	}
	t := &bodyTap{body: body, stream: stream, closed: func() {
		if len(issued) > 0 {
			persist(issued)
			issued = nil
		}
	}}
	if stream {
		t.wants = func(typ []byte) bool { return string(typ) == "response.output_item.done" }
		t.event = func(data []byte) {
			if gjson.GetBytes(data, "type").Str == "response.output_item.done" {
				item(gjson.GetBytes(data, "item"))
			}
		}
		return t
	}
	t.event = func(data []byte) {
		gjson.GetBytes(data, "output").ForEach(func(_, it gjson.Result) bool {
			item(it)
			return true
		})
	}
	return t
}

package proxy

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/filter"
)

// sseBody is a stream with a reasoning item, a compaction item and a
// message, in the line endings given.
func sseBody(nl string) string {
	ev := func(typ, data string) string { return "event: " + typ + nl + "data: " + data + nl + nl }
	return ev("response.created", `{"type":"response.created","response":{"id":"r"}}`) +
		ev("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"reasoning","id":"rs_1","encrypted_content":"CIPHER-ONE"}}`) +
		": a comment" + nl +
		"data: {\"type\":\"response.output_item.done\"," + nl + "data: \"item\":{\"type\":\"compaction\",\"encrypted_content\":\"CIPHER-TWO\"}}" + nl + nl +
		ev("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"message","id":"msg_1","content":[]}}`) +
		ev("response.completed", `{"type":"response.completed","response":{"output":[{"type":"reasoning","encrypted_content":"NOT-AN-ITEM-DONE"}]}}`)
}

// chunked reads in pieces of n bytes.
type chunked struct {
	r io.Reader
	n int
}

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// TestTapStream: whatever the read sizes and line endings, the bytes pass
// unchanged and exactly the output_item.done reasoning and compaction
// items are recorded (multi-line data included, completed ignored).
func TestTapStream(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n", "\r"} {
		body := sseBody(nl)
		for _, n := range []int{1, 2, 3, 7, 64, 1 << 16} {
			var got []string
			var persisted [][32]byte
			tp := newTap(io.NopCloser(chunked{strings.NewReader(body), n}), true, Account{1},
				func(fp [32]byte, a Account) {
					for _, c := range []string{"CIPHER-ONE", "CIPHER-TWO", "NOT-AN-ITEM-DONE"} {
						if fp == filter.Fingerprint(c) {
							got = append(got, c)
						}
					}
					if a != (Account{1}) {
						t.Fatal("recorded under another account")
					}
				}, func(fps [][32]byte) { persisted = append(persisted, fps...) })
			out, err := io.ReadAll(chunked{tp, n})
			if err != nil || string(out) != body {
				t.Fatalf("nl %q n %d: bytes changed (%v)", nl, n, err)
			}
			if strings.Join(got, ",") != "CIPHER-ONE,CIPHER-TWO" {
				t.Fatalf("nl %q n %d: recorded %v", nl, n, got)
			}
			if len(persisted) != 0 || tp.Close() != nil || len(persisted) != 2 ||
				persisted[0] != filter.Fingerprint("CIPHER-ONE") || persisted[1] != filter.Fingerprint("CIPHER-TWO") {
				t.Fatalf("nl %q n %d: persisted %d items, want both at Close", nl, n, len(persisted))
			}
		}
	}
}

// TestTapJSON: a JSON response's output items are recorded at its end; an
// oversized event is passed through and not recorded.
func TestTapJSON(t *testing.T) {
	body := `{"id":"r","output":[{"type":"reasoning","encrypted_content":"C1"},{"type":"compaction","encrypted_content":"C2"},{"type":"message"}]}`
	n := 0
	tp := newTap(io.NopCloser(strings.NewReader(body)), false, Account{}, func([32]byte, Account) { n++ }, func([][32]byte) {})
	if out, _ := io.ReadAll(tp); string(out) != body || n != 2 {
		t.Fatalf("recorded %d from %s", n, out)
	}

	huge := "data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"reasoning\",\"encrypted_content\":\"" +
		strings.Repeat("x", maxEventBytes) + "\"}}\n\n"
	n = 0
	tp = newTap(io.NopCloser(strings.NewReader(huge)), true, Account{}, func([32]byte, Account) { n++ }, func([][32]byte) {})
	out, _ := io.ReadAll(tp)
	if !bytes.Equal(out, []byte(huge)) || n != 0 || len(tp.data) > 0 {
		t.Fatalf("oversized event: recorded %d, kept %d bytes", n, len(tp.data))
	}
}

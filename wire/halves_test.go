package wire

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/jsonscan"
)

// validates reports what the one validating pass says of b.
func validates(b []byte) bool {
	_, err := onePass(b)
	return err == nil
}

func onePass(b []byte) ([]jsonscan.Member, error) {
	sc := jsonscan.Scanner{B: b}
	return sc.Members(nil)
}

// halves is validHalves with its members checked against the one pass's:
// when it decides, they must be the same.
func halves(t *testing.T, b []byte) bool {
	t.Helper()
	got, ok := validHalves(b, nil)
	if !ok {
		return false
	}
	want, err := onePass(b)
	if err != nil {
		t.Fatalf("validHalves accepted what the validating pass refuses (%v): %.200q", err, b)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("members %v, the validating pass finds %v", got, want)
	}
	return true
}

// withHalvesFrom lowers the size from which frames are validated in
// halves, for the test.
func withHalvesFrom(t *testing.T, n int) {
	old := halvesFrom
	halvesFrom = n
	t.Cleanup(func() { halvesFrom = old })
}

// TestHalvesAgreeWithTheOnePass: whenever validHalves says a frame is
// valid, the validating pass agrees — for frames valid and not, with the
// cut inside a long string, inside an escape, a UTF-8 sequence, a number,
// outside any string, and with the fault on either side of the cut — and
// for a valid tool result it does decide (the fast path is taken).
func TestHalvesAgreeWithTheOnePass(t *testing.T) {
	withHalvesFrom(t, 1<<10)
	text := bigText(200 << 10)
	head := `{"jsonrpc":"2.0","method":"session.event","params":{"event":{"text":"`
	tail := `"}}}`
	mid := func(s string) string { // text with s at its middle
		h := len(text) / 2
		return text[:h] + s + text[h:]
	}
	for _, c := range []struct {
		name, frame string
		decides     bool // validHalves must say valid
	}{
		{"tool result", head + text + tail, true},
		{"escaped quotes", head + strings.ReplaceAll(text[:len(text)/4], `\t`, `\"`) + text[len(text)/4:] + tail, true},
		{"escaped quotes at the cut", head + strings.ReplaceAll(text, `\t`, `\"`) + tail, false},
		{"control byte right", head + text[:len(text)*3/4] + "\x01" + text[len(text)*3/4:] + tail, false},
		{"control byte left", head + text[:len(text)/4] + "\x01" + text[len(text)/4:] + tail, false},
		{"bad escape right", head + text[:len(text)*3/4] + `\x` + text[len(text)*3/4:] + tail, false},
		{"bad utf-8 left", head + text[:len(text)/4] + "\xff" + text[len(text)/4:] + tail, false},
		{"cut in a \\u escape", head + mid(`\u00`) + tail, false},
		{"cut after a backslash", head + mid(`\`) + tail, false},
		{"unterminated", head + text, false},
		{"text outside a string", `{"jsonrpc":"2.0","method":"m","params":{"a":1, ` + strings.Repeat("x", 200<<10) + ` "b":"c"}}`, false},
		{"number in the middle", `{"jsonrpc":"2.0","method":"m","params":{"n":` + strings.Repeat("1", 200<<10) + `}}`, false},
		{"many short strings", `{"jsonrpc":"2.0","method":"m","params":[` + strings.Repeat(`"ab",`, 50<<10) + `"z"]}`, false},
		{"a second string after", head + text + `","more":"` + text[:100] + tail, true},
		{"trailing garbage", head + text + tail + "x", false},
	} {
		b := []byte(c.frame)
		got := halves(t, b)
		if c.decides && !got {
			t.Errorf("%s: validHalves did not decide a valid frame", c.name)
		}
		if !c.decides && got {
			t.Errorf("%s: validHalves accepted an invalid frame", c.name)
		}
	}
}

// FuzzHalves: validHalves never accepts what the validating pass refuses.
//
//	go test -run x -fuzz FuzzHalves -fuzztime 60s ./wire
func FuzzHalves(f *testing.F) {
	f.Add([]byte(bigText(3000)), uint16(1500), []byte(`\u00`))
	f.Add([]byte(bigText(3000)), uint16(10), []byte("\x01"))
	f.Add([]byte(bigText(3000)), uint16(2990), []byte(`"`))
	f.Fuzz(func(t *testing.T, text []byte, at uint16, insert []byte) {
		old := halvesFrom
		halvesFrom = 0
		defer func() { halvesFrom = old }()
		i := int(at) % (len(text) + 1)
		body := append(append(append([]byte{}, text[:i]...), insert...), text[i:]...)
		for _, doc := range [][]byte{
			append(append([]byte(`{"a":"`), body...), `"}`...),
			append(append([]byte(`{"a":[`), body...), `]}`...),
			body,
		} {
			if len(doc) < 2*quietAround+2 {
				// Too short for a quiet cut: pad the string so the path runs.
				doc = bytes.Replace(doc, []byte(`{"a":"`), []byte(`{"a":"`+strings.Repeat("p", 2*quietAround)), 1)
			}
			halves(t, doc)
		}
	})
}

// BenchmarkToolResultValidation compares, in one run, the read loop's
// validation of a 17 MiB tool result in halves with the one validating
// pass it replaces (on two free cores halves should take about 0.6× as
// long; with no core free, a little longer than one pass):
//
//	go test -run x -bench ToolResultValidation ./wire
func BenchmarkToolResultValidation(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"event":{"text":"` + bigText(17<<20) + `"}}}`)
	b.Run("halves", func(b *testing.B) {
		b.SetBytes(int64(len(frame)))
		for b.Loop() {
			if _, ok := validHalves(frame, nil); !ok {
				b.Fatal("a valid tool result was not decided in halves")
			}
		}
	})
	b.Run("onepass", func(b *testing.B) {
		b.SetBytes(int64(len(frame)))
		for b.Loop() {
			if !validates(frame) {
				b.Fatal("invalid")
			}
		}
	})
}

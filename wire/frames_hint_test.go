package wire

import (
	"bytes"
	"io"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"
)

// readLog is a reader that returns at most max bytes a read, like a pipe,
// and records where each read was asked to write.
type readLog struct {
	r     io.Reader
	max   int
	reads [][]byte // the destinations, as given
}

func (l *readLog) Read(p []byte) (int, error) {
	l.reads = append(l.reads, p)
	return l.r.Read(p[:min(len(p), l.max)])
}

// within reports whether p starts inside buf's memory.
func within(p, buf []byte) bool {
	at := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	return at >= lo && at < lo+uintptr(cap(buf))
}

// DSH's stream alternates 1 MiB payloads with tool results beyond
// bigBlock: a payload right after such a result is read straight into the
// buffer it is handed out in, not into the result's big buffer and then
// copied (while the host waits for its reply).
func TestFrameAfterAHugeOneIsReadInPlace(t *testing.T) {
	// One P and no collection, so that the pool hands back what was put.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	payload := append(bytes.Repeat([]byte{'p'}, 1<<20), '\n')
	huge := append(bytes.Repeat([]byte{'h'}, bigBlock+(2<<20)), '\n')
	var input []byte
	for range 4 {
		input = append(append(input, payload...), huge...)
	}
	log := &readLog{r: bytes.NewReader(input), max: 256 << 10}
	f := newFrameReader(log, 1<<30)
	for i := range 8 {
		before := len(log.reads)
		fr, err := f.next()
		want := len(payload) - 1
		if i%2 == 1 {
			want = len(huge) - 1
		}
		if err != nil || len(fr.line) != want {
			t.Fatalf("frame %d: %v, %d bytes, want %d", i, err, len(fr.line), want)
		}
		if i%2 == 0 && i > 0 && !raceEnabled {
			for _, p := range log.reads[before:] {
				if len(p) > readChunk && !within(p, fr.pooled) {
					t.Fatalf("payload %d (after a %d-byte frame) was read into a buffer of %d bytes, not the %d-byte one it is in",
						i, len(huge)-1, cap(p), cap(fr.pooled))
				}
			}
		}
		f.recycle(fr)
	}
}

// The small frames of a step (events, agent/request) after a large frame
// are cut from the read buffer the frames before it were cut from, in the
// room the large frame's first bytes left there: a new 64 KiB buffer per
// large frame was most of a 1 MiB payload's garbage.
func TestSmallFramesAfterALargeOneShareTheReadBuffer(t *testing.T) {
	large := bytes.Repeat([]byte{'l'}, 1<<20)
	input := []byte("first\n")
	input = append(append(input, large...), '\n')
	input = append(input, "second\n"...)
	f := newFrameReader(bytes.NewReader(input), 1<<30)
	first, err := f.next()
	if err != nil || string(first.line) != "first" {
		t.Fatalf("first frame: %v %q", err, first.line)
	}
	fr, err := f.next()
	if err != nil || !bytes.Equal(fr.line, large) {
		t.Fatalf("large frame: %v, %d bytes", err, len(fr.line))
	}
	f.recycle(fr)
	second, err := f.next()
	if err != nil || string(second.line) != "second" {
		t.Fatalf("second frame: %v %q", err, second.line)
	}
	if got, want := unsafe.SliceData(second.line), unsafe.Add(unsafe.Pointer(unsafe.SliceData(first.line)), len("first\n")); unsafe.Pointer(got) != want {
		t.Fatalf("the frame after a large one is not in the room the large one left in the read buffer")
	}
	if string(first.line) != "first" {
		t.Fatalf("the frame before the large one changed: %q", first.line)
	}
}

// A frame beyond bigBlock that lands in the buffer of a much larger one
// before it (a 17 MiB tool result in the buffer of a 64 MiB payload) is
// handed out where it landed: moving it into a buffer of its own size
// would copy all of it after its newline, while the frames behind it wait.
func TestHugeFrameInABiggerBufferIsNotMoved(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if raceEnabled {
		t.Skip("the race build's pool drops buffers at random")
	}
	frames := [][]byte{
		bytes.Repeat([]byte{'h'}, 6*bigBlock),     // the buffer the later huge frame lands in
		bytes.Repeat([]byte{'p'}, 1<<20),          // a payload between
		bytes.Repeat([]byte{'t'}, bigBlock+1<<20), // fills less than a quarter of the first's buffer
	}
	var input []byte
	for _, fr := range frames {
		input = append(append(input, fr...), '\n')
	}
	log := &readLog{r: bytes.NewReader(input), max: 256 << 10}
	f := newFrameReader(log, 1<<30)
	for i, want := range frames {
		before := len(log.reads)
		fr, err := f.next()
		if err != nil || !bytes.Equal(fr.line, want) {
			t.Fatalf("frame %d: %v, %d bytes, want %d", i, err, len(fr.line), len(want))
		}
		if i == len(frames)-1 {
			if cap(fr.pooled) < len(frames[0]) {
				t.Fatalf("the last frame is in a %d-byte buffer, not the %d-byte one of the first", cap(fr.pooled), len(frames[0]))
			}
			last := log.reads[len(log.reads)-1]
			if !within(last, fr.pooled) {
				t.Fatalf("the last frame's bytes were moved after its last read (read %d reads after the frame before)", len(log.reads)-before)
			}
		}
		f.recycle(fr)
	}
}

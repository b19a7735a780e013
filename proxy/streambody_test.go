package proxy

import (
	"errors"
	"io"
	"testing"
)

// TestStreamBodyReadFillsFromTheHandOver: Read copies from as many slices
// of the hand-over at hand as fit, so a copying reader writes chunks of
// its buffer's size whatever the slices' lengths; it returns what that
// hand-over holds without waiting for the next, and the body ends with
// the filter's error, io.EOF when it ended well.
func TestStreamBodyReadFillsFromTheHandOver(t *testing.T) {
	sb := newStreamBody()
	next := make(chan struct{})
	go func() {
		_ = sb.sendAll([][]byte{[]byte("ab"), []byte("cde"), []byte("f")})
		<-next
		_ = sb.sendAll([][]byte{[]byte("gh")})
		sb.finish(nil)
	}()
	p := make([]byte, 5)
	for _, want := range []string{"abcde", "f"} {
		n, err := sb.Read(p)
		if err != nil || string(p[:n]) != want {
			t.Fatalf("Read = %q, %v; want %q", p[:n], err, want)
		}
	}
	close(next)
	if n, err := sb.Read(p); err != nil || string(p[:n]) != "gh" {
		t.Fatalf("Read = %q, %v; want \"gh\"", p[:n], err)
	}
	if n, err := sb.Read(p); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("Read at the end = %d, %v; want io.EOF", n, err)
	}

	failed := newStreamBody()
	stop := errors.New("the filter failed")
	go func() {
		_ = failed.sendAll([][]byte{[]byte("xy")})
		failed.finish(stop)
	}()
	if b, err := io.ReadAll(failed); string(b) != "xy" || !errors.Is(err, stop) {
		t.Fatalf("ReadAll = %q, %v; want \"xy\" and the filter's error", b, err)
	}
}

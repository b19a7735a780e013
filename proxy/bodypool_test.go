package proxy

import (
	"io"
	"testing"
)

// TestBodyLeaseGoesBackOnlyWhenNoOneHoldsIt: a pooled buffer goes back to
// the pool once both the handler and the pipelined body that took it have
// let go, and not before; one no pipelined body took (forwarded whole,
// where the transport may still read it) and one out of the pooled range
// never go back.
func TestBodyLeaseGoesBackOnlyWhenNoOneHoldsIt(t *testing.T) {
	var pool bodyBuffers
	for _, handlerFirst := range []bool{true, false} {
		l := pool.lease()
		b := l.bytes(pipelineFrom + 1)
		if len(b) != pipelineFrom+1 || cap(b) != pipelineFrom+1 || len(l.buf) != pipelineFrom+bodyClass {
			t.Fatalf("bytes gave len %d cap %d of a %d-byte buffer", len(b), cap(b), len(l.buf))
		}
		fenced := l.fence()
		first, second := l.release, fenced
		if !handlerFirst {
			first, second = fenced, l.release
		}
		first()
		if l.buf == nil {
			t.Fatal("the buffer went back while still held")
		}
		second()
		if l.buf != nil {
			t.Fatal("the buffer did not go back once no one held it")
		}
	}

	unfenced := pool.lease()
	unfenced.bytes(pipelineFrom)
	unfenced.release()
	if unfenced.buf == nil {
		t.Fatal("a buffer no pipelined body held went back")
	}
	for _, n := range []int{pipelineFrom - 1, pooledBodyMax + 1} {
		l := pool.lease()
		if b := l.bytes(n); len(b) != n || l.buf != nil {
			t.Fatalf("a %d-byte body got a pooled buffer (%d bytes)", n, len(l.buf))
		}
	}
	if p, size := pool.class(pooledBodyMax); p != &pool.classes[len(pool.classes)-1] || size != pooledBodyMax {
		t.Fatalf("the largest pooled body has class size %d", size)
	}
}

// blockedWriter blocks its first Write until release is closed.
type blockedWriter struct{ writing, release chan struct{} }

func (w blockedWriter) Write(p []byte) (int, error) {
	close(w.writing)
	<-w.release
	return len(p), nil
}

// TestStreamBodyQuietOnlyOnceNothingReads: the body is quiet (its buffer
// free to reuse) once it is closed and the transport's Write of a slice,
// under way when it closed, has returned; a body closed with no reader is
// quiet at once; later reads are refused.
func TestStreamBodyQuietOnlyOnceNothingReads(t *testing.T) {
	sb := newStreamBody()
	quiet := make(chan struct{})
	sb.quiet = func() { close(quiet) }
	go func() {
		_ = sb.sendAll([][]byte{[]byte("slice")})
		<-sb.closed
		sb.finish(errRequestDone) // as the pipeline's filter goroutine does
	}()
	w := blockedWriter{writing: make(chan struct{}), release: make(chan struct{})}
	wrote := make(chan error, 1)
	go func() {
		_, err := sb.WriteTo(w)
		wrote <- err
	}()
	<-w.writing
	_ = sb.Close()
	select {
	case <-quiet:
		t.Fatal("the body went quiet while the transport was writing one of its slices")
	default:
	}
	close(w.release)
	if err := <-wrote; err != errRequestDone {
		t.Fatalf("WriteTo on a closed body ended with %v", err)
	}
	<-quiet // the Write returned: nothing reads the slices any more
	if _, err := sb.Read(make([]byte, 1)); err != errRequestDone {
		t.Fatalf("Read once quiet = %v, want errRequestDone", err)
	}

	idle := newStreamBody()
	called := 0
	idle.quiet = func() { called++ }
	_ = idle.Close()
	_ = idle.Close()
	if _, err := io.ReadAll(idle); err != errRequestDone || called != 1 {
		t.Fatalf("a body closed with no reader: quiet called %d times, ReadAll %v", called, err)
	}
}

package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Client speaks NDJSON to a child process with as little work of its own
// as possible, so that the round trip it times is the child's cost and the
// pipe's: a frame goes out in one write (from a goroutine, so a child that
// echoes while it reads cannot deadlock the pipe), and the answer line is
// read into one reusable buffer that is never decoded whole. It is not
// safe for concurrent use.
type Client struct {
	cmd    *exec.Cmd
	in     *os.File // write end of the child's stdin
	out    *os.File // read end of the child's stdout
	stderr *tail

	buf  []byte // buf[off:n] is read and not yet returned
	off  int
	scan int // buf[off:scan] is known to hold no newline
	n    int
}

// errClosed reports that the child closed its stdout before answering.
var errClosed = errors.New("bench: the child closed its output before answering")

// StartClient starts name with args and connects to its stdin and stdout.
// The child's stderr is kept (its last 8 KiB) for error reports.
func StartClient(name string, args ...string) (*Client, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	c := newClient(inW, outR)
	c.cmd = exec.Command(name, args...)
	c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr = inR, outW, c.stderr
	err = c.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	return c, nil
}

// newClient speaks over in (the peer's stdin) and out (its stdout).
func newClient(in, out *os.File) *Client {
	return &Client{in: in, out: out, stderr: &tail{max: 8 << 10}, buf: make([]byte, 64<<10)}
}

// Exchange writes frame (one line ending in '\n') and, while it is being
// written, reads lines until accept returns true for one; that line is
// returned and stays valid until the next call. Lines accept rejects are
// passed to other (may be nil) after the write has finished, so other may
// write replies.
func (c *Client) Exchange(frame []byte, accept func([]byte) bool, other func([]byte) error) ([]byte, error) {
	done := make(chan error, 1)
	go func() {
		_, err := c.in.Write(frame)
		done <- err
	}()
	var werr error
	written := false
	for {
		line, err := c.readLine()
		if err != nil {
			if !written {
				<-done
			}
			return nil, c.withStderr(err)
		}
		if accept(line) {
			if !written {
				werr = <-done
			}
			return line, werr
		}
		if !written {
			werr, written = <-done, true
			if werr != nil {
				return nil, werr
			}
		}
		if other != nil {
			if err := other(line); err != nil {
				return nil, err
			}
		}
	}
}

// Write writes bytes to the child (a notification or a reply).
func (c *Client) Write(b []byte) error {
	_, err := c.in.Write(b)
	return err
}

// readLine returns the next line without its newline. The buffer is
// compacted only when full and grows by doubling, so after the first large
// frame no read allocates.
func (c *Client) readLine() ([]byte, error) {
	if c.off == c.n {
		c.off, c.scan, c.n = 0, 0, 0
	}
	for {
		if i := bytes.IndexByte(c.buf[c.scan:c.n], '\n'); i >= 0 {
			end := c.scan + i
			line := c.buf[c.off:end]
			c.off, c.scan = end+1, end+1
			return line, nil
		}
		c.scan = c.n
		if c.n == len(c.buf) {
			if c.off > 0 {
				c.n = copy(c.buf, c.buf[c.off:c.n])
				c.scan -= c.off
				c.off = 0
			} else {
				grown := make([]byte, 2*len(c.buf))
				copy(grown, c.buf[:c.n])
				c.buf = grown
			}
		}
		m, err := c.out.Read(c.buf[c.n:])
		c.n += m
		if err != nil && m == 0 {
			if errors.Is(err, io.EOF) {
				return nil, errClosed
			}
			return nil, err
		}
	}
}

// Close closes the child's stdin and waits up to five seconds for it to
// exit, then kills it.
func (c *Client) Close() error {
	c.in.Close()
	if c.cmd == nil { // an in-process peer (see newClient) ends on EOF
		return c.out.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-ctx.Done():
		_ = c.cmd.Process.Kill()
		err = <-exited
	}
	c.out.Close()
	return err
}

func (c *Client) withStderr(err error) error {
	if s := c.stderr.String(); s != "" {
		return fmt.Errorf("%w; child stderr: %s", err, s)
	}
	return err
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

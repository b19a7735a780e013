package bench

import (
	"fmt"
	"time"
)

// Pipe is the transport baseline: the same frame bytes sent through
// /bin/cat and read back as one line by the same Client, so the difference
// to the plugin's round trip is what the plugin does with the bytes.
type Pipe struct {
	c *Client
}

// StartPipe starts cat.
func StartPipe() (*Pipe, error) {
	c, err := StartClient("cat")
	if err != nil {
		return nil, err
	}
	return &Pipe{c: c}, nil
}

// Copy sends frame (one line ending in '\n') and returns the time until
// the whole line is back.
func (p *Pipe) Copy(frame []byte) (time.Duration, error) {
	start := time.Now()
	line, err := p.c.Exchange(frame, func([]byte) bool { return true }, nil)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if len(line) != len(frame)-1 {
		return 0, fmt.Errorf("bench: cat returned %d bytes of a %d-byte line", len(line), len(frame)-1)
	}
	return d, nil
}

// Close ends cat.
func (p *Pipe) Close() error { return p.c.Close() }

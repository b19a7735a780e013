package bench

import (
	"testing"
	"time"
)

// A child that has burnt CPU shows it in peerCPU, and a client without a
// child process (an in-process peer) shows nothing.
func TestPeerCPUReadsTheChild(t *testing.T) {
	c, err := StartClient("sh", "-c", `i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo looped; cat`)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	line, err := c.readLine()
	if err != nil || string(line) != "looped" {
		t.Fatalf("child said %q, %v", line, err)
	}
	if got := c.peerCPU(); got < 10*time.Millisecond {
		t.Errorf("peerCPU after a 200,000-step shell loop = %v, want at least one 10 ms tick", got)
	}
	if got := (&Client{}).peerCPU(); got != 0 {
		t.Errorf("peerCPU of a client without a child = %v, want 0", got)
	}
}

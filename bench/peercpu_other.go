//go:build !linux

package bench

import "time"

// peerCPU is not measured on this platform (it reads /proc); the peer
// CPU column reads zero.
func (c *Client) peerCPU() time.Duration { return 0 }

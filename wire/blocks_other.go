//go:build !unix

package wire

// newBlock returns n bytes for a frame that outgrew its first buffer
// (mapped outside the heap on unix; see blocks_unix.go).
func newBlock(n int) []byte { return make([]byte, n) }

// freeBlock leaves a block to the collector.
func freeBlock([]byte) {}

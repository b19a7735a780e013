//go:build unix

package wire

import "syscall"

// newBlock returns n bytes for a frame that outgrew its first buffer. They
// are mapped outside the Go heap so that freeBlock can hand them back to
// the system the moment they are copied out: a frame gathered in blocks
// and then joined holds its size once, not twice (blocks and the joined
// copy), and a refused line's blocks do not wait for a collection.
func newBlock(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n) // the collector frees it instead
	}
	return b
}

// freeBlock unmaps a block from newBlock; nothing may refer to it any
// more. A block that newBlock had to allocate on the heap is not mapped,
// so Munmap refuses it and the collector frees it.
func freeBlock(b []byte) { _ = syscall.Munmap(b[:cap(b)]) }

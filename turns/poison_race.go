//go:build race

package turns

// The race build is the debug build: a recycled output buffer is
// overwritten at once, so a retry reply or record that still read it
// would show garbage in the test that did it.
func init() { poisonRecycled = poison }

func poison(b []byte) {
	for i := range b {
		b[i] = 0xFF
	}
}

//go:build race

package wire

// The race build is the debug build: released buffers are poisoned in
// every binary built with -race, tests and e2e binaries alike.
func init() { poisonReleased = poison }

// poison overwrites a released buffer with 0xFF so that a slice kept
// past Release is caught by the next test that reads it.
func poison(b []byte) {
	if len(b) == 0 {
		return
	}
	b[0] = 0xFF
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

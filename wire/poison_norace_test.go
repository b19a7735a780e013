//go:build !race

package wire

// Without the race tag only wire's own tests poison released buffers
// (poison_race.go does it for every binary of the race build); poison is
// the same as there.
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

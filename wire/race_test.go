//go:build race

package wire

// raceEnabled: under the race detector sync.Pool drops a share of what is
// put back on purpose, so tests cannot count on reuse.
const raceEnabled = true

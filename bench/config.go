package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Config says what one run measures.
type Config struct {
	// Binary is the continuity binary for the wire cases; empty skips
	// them (the report says so).
	Binary string
	// Sizes are the payload sizes of the size table, in bytes.
	Sizes []int
	// Kinds are the payload kinds of the size table (Kinds by default).
	Kinds []string
	// Runs is the least number of samples per case.
	Runs int
	// MinDuration is how long a case keeps sampling beyond Runs (in
	// process and in Node); wire cases sample three times as long, so that
	// p99 at 1 MiB rests on hundreds of round trips.
	MinDuration time.Duration
	// LatencySamples is the least number of wire round trips on payloads
	// of 1 MiB and less, where the p99 bar applies.
	LatencySamples int
	// CountSize and Counts make the reasoning-count table: payloads of
	// CountSize bytes with each number of reasoning items.
	CountSize int
	Counts    []int
	// SessionTurns turns of a session growing to SessionSize bytes make
	// the long-session table (0 turns: no table).
	SessionTurns int
	SessionSize  int
	// EventSteps is how many 1 MiB payloads the event-stream case sends
	// behind a 17 MiB tool/result (and as many without; 0: no case).
	EventSteps int
	// ProxySizes are the body sizes of the proxy comparison (none: no
	// comparison), ProxyStreamBytes the length of its SSE answer.
	ProxySizes       []int
	ProxyStreamBytes int
	// ProxySessions clients at once, each its own session, send
	// ProxySessionBytes bodies ProxySessionRounds times through both
	// proxies (0 sessions: no case).
	ProxySessions      int
	ProxySessionBytes  int
	ProxySessionRounds int
	// NoNode skips the Node.js reference even when node is installed.
	NoNode bool
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// DefaultConfig is the full run: 64 KiB to 64 MiB, a few minutes on two
// cores.
func DefaultConfig() Config {
	return Config{
		Sizes:       []int{64 << 10, 1 << 20, 16 << 20, 64 << 20},
		Kinds:       Kinds,
		Runs:        5,
		MinDuration: 300 * time.Millisecond,
		// p99 by nearest rank over 1000 round trips is the 10th slowest, not
		// one unlucky sample; 1 MiB costs about 3 ms, so 3 s per kind.
		LatencySamples: 1000,
		CountSize:      16 << 20,
		Counts:         []int{16, 256, 1024, 4096},
		SessionTurns:   24,
		SessionSize:    16 << 20,
		// 200 steps each way: p99 is the second slowest, not the slowest.
		EventSteps: 200,
		// The goals for `continuity proxy` are set at 1 and 16 MiB.
		ProxySizes:       []int{1 << 20, 16 << 20},
		ProxyStreamBytes: 16 << 20,
		// 16 sessions of 1 MiB: the goal; 8 rounds make p99 rest
		// on 128 requests a side.
		ProxySessions:      16,
		ProxySessionBytes:  1 << 20,
		ProxySessionRounds: 8,
	}
}

// QuickConfig is a fast check on small payloads; the bars are then
// computed at the largest size measured and say so.
func QuickConfig() Config {
	c := DefaultConfig()
	c.Sizes = []int{64 << 10, 1 << 20}
	c.Runs = 3
	c.MinDuration = 100 * time.Millisecond
	// Nearest-rank p99 of fewer than 100 round trips is their maximum; 500
	// (about 1.5 s per kind at 1 MiB) make it the 5th slowest.
	c.LatencySamples = 500
	c.CountSize = 1 << 20
	c.Counts = []int{4, 16, 64}
	c.SessionTurns = 8
	c.SessionSize = 2 << 20
	c.EventSteps = 100 // nearest-rank p99 of fewer than 100 is their maximum
	c.ProxySizes = []int{1 << 20}
	c.ProxyStreamBytes = 8 << 20
	return c
}

// ParseSizes reads a comma-separated list of sizes such as
// "64KiB,1MiB,64MiB" (units B, KiB, MiB, GiB; also K, M, G).
func ParseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := parseSize(f)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, n)
	}
	if len(sizes) == 0 {
		return nil, fmt.Errorf("bench: no sizes in %q", s)
	}
	return sizes, nil
}

func parseSize(f string) (int, error) {
	orig := f
	units := []struct {
		suffix string
		mult   int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	mult := 1
	for _, u := range units {
		if strings.HasSuffix(f, u.suffix) {
			f, mult = strings.TrimSuffix(f, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.Atoi(f)
	if err != nil || n <= 0 || n > (1<<30)/mult {
		return 0, fmt.Errorf("bench: bad size %q (want e.g. 64KiB, 1MiB, up to 1GiB)", orig)
	}
	return n * mult, nil
}

// FormatSize writes a size in the largest unit ParseSizes reads that it
// reaches: whole when it is a whole number of that unit, else to one
// decimal, so a measured 165767 KiB reads 161.9 MiB like its neighbours.
func FormatSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.Itoa(n) + " B"
}

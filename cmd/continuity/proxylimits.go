package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/continuity-dev/continuity/proxy"
)

// limitFlags registers the proxy's connection and body limits
// (proxy.Limits) and returns them once parsed.
func limitFlags(c command) func() (proxy.Limits, error) {
	d := proxy.DefaultLimits
	l := d
	c.DurationVar(&l.HeaderTimeout, "header-timeout", d.HeaderTimeout, "how long a request's header may take to arrive")
	c.DurationVar(&l.IdleTimeout, "idle-timeout", d.IdleTimeout, "how long a keep-alive connection may wait for its next request")
	c.DurationVar(&l.BodyGrace, "body-grace", d.BodyGrace, "a request body must arrive within this time plus its length at --body-min-rate")
	c.Var((*sizeFlag)(&l.BodyMinRate), "body-min-rate", "the least rate a request body must arrive at past --body-grace, bytes a second (e.g. 64KiB)")
	c.Var((*sizeFlag)(&l.BodyBudget), "body-budget", "the request bodies held at once, as sent and decompressed, across all requests (e.g. 1GiB)")
	c.DurationVar(&l.BudgetWait, "body-budget-wait", d.BudgetWait, "how long a request waits for its share of --body-budget before a 503 with Retry-After")
	return func() (proxy.Limits, error) {
		for _, f := range []struct {
			name string
			v    time.Duration
		}{{"header-timeout", l.HeaderTimeout}, {"idle-timeout", l.IdleTimeout}, {"body-grace", l.BodyGrace}, {"body-budget-wait", l.BudgetWait}} {
			if f.v <= 0 {
				return l, fmt.Errorf("--%s must be a positive duration such as 30s, not %s", f.name, f.v)
			}
		}
		return l, nil
	}
}

// limitMemory sets the Go runtime's soft memory limit to the body budget
// plus room for everything else, unless GOMEMLIMIT is set: the garbage
// collector then frees a finished body's buffer before the next one is
// allocated instead of letting the heap grow to twice what is live, so the
// process's peak stays near what the budget admits.
func limitMemory(budget int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(budget + 256<<20)
}

// sizeFlag is a byte count given as an integer with an optional unit: B,
// KiB, MiB, GiB (also K, M, G, powers of 1024).
type sizeFlag int64

func (s *sizeFlag) String() string { return strconv.FormatInt(int64(*s), 10) }

func (s *sizeFlag) Set(v string) error {
	mult := int64(1)
	num := strings.TrimSpace(v)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("%q is not a positive size such as 64KiB or 1GiB", v)
	}
	*s = sizeFlag(n * mult)
	return nil
}

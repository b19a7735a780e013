//go:build unix

package filter

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used. Benchmarks compare CPU
// time, not wall time, so that other work on a shared machine does not
// skew their ratios.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

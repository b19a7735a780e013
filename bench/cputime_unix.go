//go:build unix

package bench

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system), which
// next to wall time shows what garbage collection on the other core costs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

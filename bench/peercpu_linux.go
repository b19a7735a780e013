package bench

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: Linux reports
// them to user space in ticks of 1/100 s on every architecture.
const userHZ = 100

// peerCPU is the CPU time (user and system, every thread) the child has
// used so far, read from /proc; 0 when it cannot be read. Its resolution
// is 10 ms, so it is only meaningful summed over many operations.
func (c *Client) peerCPU() time.Duration {
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name in parentheses may hold spaces: fields count
	// from the last ')', where f[0] is the state (field 3 of proc(5)),
	// so utime and stime (fields 14 and 15) are f[11] and f[12].
	s := string(b)
	k := strings.LastIndexByte(s, ')')
	if k < 0 {
		return 0
	}
	f := strings.Fields(s[k+1:])
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * time.Second / userHZ
}

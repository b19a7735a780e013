package server_test

import (
	"os"

	"golang.org/x/sys/unix"
)

// widenPipe gives an OS pipe the 1 MiB buffer `continuity serve` asks
// for on its stdin (cmd/continuity/pipes_linux.go), so that a benchmark
// sees what is still in the pipe when the host's write of a large frame
// returns, as the binary does.
func widenPipe(f *os.File) { _, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20) }

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeBytes is the pipe buffer continuity asks for on stdin and stdout.
// Linux pipes hold 64 KiB by default, so a 1 MiB frame crosses in 16
// wake-ups of each process; 1 MiB (the unprivileged maximum by default)
// lets it cross in one. Failure (not a pipe, a lower limit) is harmless.
const pipeBytes = 1 << 20

func widenPipes(files ...*os.File) {
	for _, f := range files {
		_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, pipeBytes)
	}
}

//go:build windows

package main

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a process group of its own, away from the console's
// Ctrl-C, so a proxy shared by several runs outlives the one that began it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

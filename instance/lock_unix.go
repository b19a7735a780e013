//go:build unix

package instance

import (
	"os"
	"syscall"
)

// lockFile is an flock(2) lock, released by the kernel when the process ends.
type lockFile struct{ f *os.File }

func openLock(path string) (*lockFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &lockFile{f: f}, nil
}

func mode(exclusive bool) int {
	if exclusive {
		return syscall.LOCK_EX
	}
	return syscall.LOCK_SH
}

func (l *lockFile) tryLock(exclusive bool) (bool, error) {
	err := syscall.Flock(int(l.f.Fd()), mode(exclusive)|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return false, nil
	}
	return err == nil, err
}

func (l *lockFile) lock(exclusive bool) error {
	for {
		err := syscall.Flock(int(l.f.Fd()), mode(exclusive))
		if err != syscall.EINTR {
			return err
		}
	}
}

func (l *lockFile) close() error { return l.f.Close() }

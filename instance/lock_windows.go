//go:build windows

package instance

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile is a LockFileEx lock on the file's first byte, released by the
// system when the process ends.
type lockFile struct{ f *os.File }

func openLock(path string) (*lockFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &lockFile{f: f}, nil
}

func (l *lockFile) lockEx(flags uint32) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(l.f.Fd()), flags, 0, 1, 0, &ol)
}

func flags(exclusive bool) uint32 {
	if exclusive {
		return windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return 0
}

func (l *lockFile) tryLock(exclusive bool) (bool, error) {
	err := l.lockEx(flags(exclusive) | windows.LOCKFILE_FAIL_IMMEDIATELY)
	if err == windows.ERROR_LOCK_VIOLATION {
		return false, nil
	}
	return err == nil, err
}

func (l *lockFile) lock(exclusive bool) error { return l.lockEx(flags(exclusive)) }

func (l *lockFile) close() error { return l.f.Close() }

//go:build windows

package settings

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive lock on path (creating it) with LockFileEx and
// returns the release. Windows drops the lock when its handle is closed,
// also when the holder dies, so a killed writer never blocks the next one;
// the lock belongs to the handle, so goroutines of one process exclude each
// other as processes do.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
	}, nil
}

// syncDir does nothing on Windows: a directory cannot be opened for
// FlushFileBuffers there (access is denied), and NTFS journals the rename
// that makes a write visible.
func syncDir(string) error { return nil }

// replaceFile makes tmp the file at path. A reader holding path open (a
// Describe from another process; reads take no lock) makes the replacing
// rename fail for that moment, so it is retried for up to half a second.
func replaceFile(tmp, path string) error {
	var err error
	for range 50 {
		if err = os.Rename(tmp, path); err == nil || !errors.Is(err, windows.ERROR_ACCESS_DENIED) && !errors.Is(err, windows.ERROR_SHARING_VIOLATION) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

//go:build windows

package settings

import (
	"os"

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

//go:build unix

package settings

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path (creating it) and returns the
// release. The kernel drops the lock when the holder dies, so a killed
// writer never blocks the next one. flock is per open file description, so
// goroutines of one process exclude each other as processes do.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// replaceFile makes tmp the file at path, atomically.
func replaceFile(tmp, path string) error { return os.Rename(tmp, path) }

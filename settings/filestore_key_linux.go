//go:build linux

package settings

import (
	"os"
	"syscall"
	"time"
)

// fileKey is what a stat shows of one version of a file: a rewrite by
// rename changes the inode and the change time (see seen).
type fileKey struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // ns since the epoch
}

// keyOf returns fi's key; ok is false where the platform's stat has none.
func keyOf(fi os.FileInfo) (k fileKey, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{dev: uint64(st.Dev), ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}

// before reports whether both of the key's times are strictly before t.
func (k fileKey) before(t time.Time) bool {
	n := t.UnixNano()
	return k.mtime < n && k.ctime < n
}

//go:build !linux

package settings

import (
	"os"
	"time"
)

// fileKey is empty where the stat's inode and change time are not read:
// every Describe reads the file (and parses it only when its bytes
// changed).
type fileKey struct{}

func keyOf(os.FileInfo) (fileKey, bool) { return fileKey{}, false }

func (fileKey) before(time.Time) bool { return false }

package settings

import (
	"sync/atomic"
	"time"
)

// PauseBeforeRename makes the next FileStore writes call pause once their
// temp file is written, before it becomes the document, so a crash test can
// kill the writer exactly there.
func PauseBeforeRename(pause func()) { afterTempWrite = pause }

// SettleAfter sets how much older than a read a settings file's times must
// be for the next Describe to trust a stat of it (negative: every file is
// settled at once) until the test ends.
func SettleAfter(t interface{ Cleanup(func()) }, d time.Duration) {
	old := settleTime
	settleTime = d
	t.Cleanup(func() { settleTime = old })
}

// CountReads makes every read of a document file by Describe add one to
// the returned counter until the test ends.
func CountReads(t interface{ Cleanup(func()) }) *atomic.Int64 {
	var n atomic.Int64
	old := afterDocumentRead
	afterDocumentRead = func() { n.Add(1) }
	t.Cleanup(func() { afterDocumentRead = old })
	return &n
}

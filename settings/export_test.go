package settings

// PauseBeforeRename makes the next FileStore writes call pause once their
// temp file is written, before it becomes the document, so a crash test can
// kill the writer exactly there.
func PauseBeforeRename(pause func()) { afterTempWrite = pause }

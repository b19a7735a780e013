package settings

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/continuity-dev/continuity/diag"
)

// seen is what Describe last read of each namespace, so a read of a file
// that has not changed costs one stat instead of an open, a read and a
// strict parse (every new turn's admission resolves the policy).
//
// Writers — this process's Mutate, `continuity policy`, the proxy, a
// second serve — replace the document by rename, so a changed document is
// a different file: another inode, and a change time taken when it was
// written. A stat that still shows the inode, device, size, modification
// and change times of the file read is the same file with the same bytes,
// as long as those times cannot be repeated by a later file: the file's
// times must be older than the read by more than any filesystem's
// timestamp granularity (settleTime). A later file that reuses the inode
// is created after the read closed it, so its change time is later than
// the read less one granularity, never equal to the settled one. A file
// read within settleTime of its writing is re-read next time (its bytes
// are compared, so an unchanged document is still not parsed again).
//
// Mutate never uses what was seen: its compare-and-swap reads the file
// afresh under the namespace lock, so a stale read could only make a
// write computed from it fail with a conflict, never land over a newer
// revision.
type seen struct {
	mu   sync.Mutex
	docs map[string]seenDoc
}

// seenDoc is one namespace's document as last read.
type seenDoc struct {
	key     fileKey
	settled bool   // key's times were older than the read by more than settleTime
	raw     []byte // the file's bytes; doc.Value is a slice of it
	doc     document
}

// settleTime bounds filesystem timestamp granularity: 2 s covers FAT's
// 2-second times and the 1-second times of ext3 and HFS+ (ext4, xfs, btrfs
// and tmpfs store nanoseconds from a clock tick of at most 10 ms).
var settleTime = 2 * time.Second

func (s *seen) get(ns string) (seenDoc, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[ns]
	return d, ok
}

func (s *seen) put(ns string, d seenDoc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docs == nil {
		s.docs = make(map[string]seenDoc)
	}
	s.docs[ns] = d
}

func (s *seen) forget(ns string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.docs, ns)
}

// describeDoc is load for Describe: the document as a stat or a read of
// the file shows it now, its Value the caller's own copy.
func (s *FileStore) describeDoc(ns string) (document, error) {
	path := s.Path(ns)
	last, ok := s.seen.get(ns)
	if ok && last.settled {
		if fi, err := os.Stat(path); err == nil {
			if k, ok := keyOf(fi); ok && k == last.key {
				return last.doc.own(), nil
			}
		}
	}
	start := time.Now()
	raw, key, keyed, err := readKeyed(path)
	if errors.Is(err, fs.ErrNotExist) {
		s.seen.forget(ns)
		return document{Value: []byte("{}")}, nil
	}
	if err != nil {
		s.seen.forget(ns)
		return document{}, diag.Newf(diag.SettingsUnavailable, "settings namespace %q: read: %v", ns, err)
	}
	next := seenDoc{raw: raw}
	if ok && bytes.Equal(raw, last.raw) {
		next.raw, next.doc = last.raw, last.doc
	} else if next.doc, ok = parseDocument(raw); !ok {
		s.seen.forget(ns)
		return document{}, s.malformed(ns)
	}
	if keyed {
		next.key = key
		next.settled = key.before(start.Add(-settleTime))
	}
	s.seen.put(ns, next)
	return next.doc.own(), nil
}

// own returns d with a Value no other caller holds, so a caller that
// edits it cannot change what the next Describe returns.
func (d document) own() document {
	d.Value = bytes.Clone(d.Value)
	return d
}

// readKeyed reads the file and stats the same open file after the read,
// so the key describes the bytes read (a file edited in place during the
// read shows a change time too recent to settle).
func readKeyed(path string) (raw []byte, key fileKey, keyed bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileKey{}, false, err
	}
	defer f.Close()
	raw, err = io.ReadAll(f)
	if err != nil {
		return nil, fileKey{}, false, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, fileKey{}, false, err
	}
	afterDocumentRead()
	key, keyed = keyOf(fi)
	return raw, key, keyed, nil
}

// afterDocumentRead runs after each read of a document file by Describe;
// tests count the reads a stat saved.
var afterDocumentRead = func() {}

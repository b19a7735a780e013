package settings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/internal/strictjson"
)

// FileStore is the embedded settings service for hosts without one (and
// for the demo). It keeps one JSON document {"revision": N, "value": {…}}
// per namespace in a directory, and gives the host's guarantees: a write
// names the revision it was computed from and fails with SETTINGS_CONFLICT
// when that is stale, also between processes, because the read-compare-
// write runs under an exclusive flock on <ns>.lock; a write is atomic and
// durable (temp file, fsync, rename, fsync of the directory), so a crash
// leaves the old or the new document, never a torn one. A document that
// does not parse is reported as SETTINGS_INVALID and is never overwritten.
type FileStore struct {
	dir  string
	seen seen // what Describe last read of each namespace
}

var _ hostapi.Settings = (*FileStore)(nil)

// nsName limits namespace names to safe file names.
var nsName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// OpenFileStore returns a FileStore in dir, creating dir (mode 0700) when
// it is missing.
func OpenFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, diag.Newf(diag.SettingsUnavailable, "settings directory: %v", err)
	}
	return &FileStore{dir: dir}, nil
}

// document is the stored form of one namespace.
type document struct {
	Revision int64           `json:"revision"`
	Value    json.RawMessage `json:"value"`
}

// Path is the file that holds namespace ns.
func (s *FileStore) Path(ns string) string { return filepath.Join(s.dir, ns+".json") }

// Describe returns the namespace's value and revision; a namespace never
// written is {} at revision 0. It takes no lock: renames are atomic, so a
// reader sees one whole document. A document whose file a stat shows
// unchanged since the last Describe is not read again (see seen).
func (s *FileStore) Describe(ctx context.Context, ns string) (hostapi.Namespace, error) {
	if err := checkNS(ctx, ns); err != nil {
		return hostapi.Namespace{}, err
	}
	doc, err := s.describeDoc(ns)
	if err != nil {
		return hostapi.Namespace{}, err
	}
	return hostapi.Namespace{NS: ns, Value: doc.Value, Revision: doc.Revision}, nil
}

// Mutate applies ops (see ApplyOps) when the stored revision is still
// expectedRevision and returns the new revision, expectedRevision+1.
func (s *FileStore) Mutate(ctx context.Context, ns string, ops []hostapi.Op, expectedRevision int64) (int64, error) {
	if err := checkNS(ctx, ns); err != nil {
		return 0, err
	}
	unlock, err := lockFile(filepath.Join(s.dir, ns+".lock"))
	if err != nil {
		return 0, diag.Newf(diag.SettingsUnavailable, "settings namespace %q: lock: %v", ns, err)
	}
	defer unlock()
	doc, err := s.load(ns)
	if err != nil {
		return 0, err
	}
	if doc.Revision != expectedRevision {
		return 0, HostConflictError(ns, expectedRevision, doc.Revision)
	}
	value, err := ApplyOps(doc.Value, ops)
	if err != nil {
		return 0, fmt.Errorf("settings namespace %q: %w", ns, err)
	}
	next, err := json.Marshal(document{Revision: doc.Revision + 1, Value: value})
	if err != nil {
		return 0, err
	}
	if err := s.write(ns, next); err != nil {
		return 0, diag.Newf(diag.SettingsUnavailable, "settings namespace %q: write: %v", ns, err)
	}
	return doc.Revision + 1, nil
}

func checkNS(ctx context.Context, ns string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !nsName.MatchString(ns) {
		return fmt.Errorf("settings namespace name is not a safe file name")
	}
	return nil
}

// load reads and strictly parses the namespace document, always from the
// file: Mutate's compare-and-swap never trusts an earlier read.
func (s *FileStore) load(ns string) (document, error) {
	b, err := os.ReadFile(s.Path(ns))
	if errors.Is(err, fs.ErrNotExist) {
		return document{Value: json.RawMessage("{}")}, nil
	}
	if err != nil {
		return document{}, diag.Newf(diag.SettingsUnavailable, "settings namespace %q: read: %v", ns, err)
	}
	doc, ok := parseDocument(b)
	if !ok {
		return document{}, s.malformed(ns)
	}
	return doc, nil
}

// malformed is SETTINGS_INVALID for a stored document that does not parse.
func (s *FileStore) malformed(ns string) error {
	return diag.Newf(diag.SettingsInvalid, "settings namespace %q: stored document %s is malformed; it is left untouched", ns, s.Path(ns)).
		With("path", s.Path(ns))
}

// parseDocument accepts exactly {"revision": <integer ≥ 0>, "value": {…}}
// in valid UTF-8 with no member name twice in any object: a document that a
// lenient reader would take one copy of would lose the other when it is
// written back.
func parseDocument(b []byte) (document, bool) {
	if strictjson.Check(b) != nil {
		return document{}, false
	}
	m, err := members(b, []string{"revision", "value"})
	if err != nil {
		return document{}, false
	}
	rev, ok := integer(m["revision"])
	v := bytes.TrimSpace(m["value"])
	if !ok || rev < 0 || len(v) == 0 || v[0] != '{' {
		return document{}, false
	}
	return document{Revision: rev, Value: v}, true
}

// write replaces the namespace file atomically and durably. It runs under
// the namespace lock, so any temp file it finds was left by a writer that
// died mid-write and is removed first.
func (s *FileStore) write(ns string, data []byte) error {
	stale, _ := filepath.Glob(filepath.Join(s.dir, ns+".json.*.tmp"))
	for _, p := range stale {
		os.Remove(p)
	}
	f, err := os.CreateTemp(s.dir, ns+".json.*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	afterTempWrite()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = replaceFile(tmp, s.Path(ns))
	}
	if err != nil {
		if rerr := os.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return errors.Join(err, rerr)
		}
		return err
	}
	return syncDir(s.dir)
}

// afterTempWrite runs between filling the temp file and making it the
// document; tests of crashes mid-write stop a writer there.
var afterTempWrite = func() {}

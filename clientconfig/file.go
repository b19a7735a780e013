package clientconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/pmezard/go-difflib/difflib"
)

// MaxFileBytes bounds a configuration file continuity reads.
const MaxFileBytes = 4 << 20

// Suffixes of the files an edit leaves beside the configuration.
const (
	BackupSuffix = ".continuity-backup"
	RecordSuffix = ".continuity-undo"
)

var (
	// ErrNothingToUndo: continuity has not changed the file.
	ErrNothingToUndo = errors.New("nothing to undo")
	// ErrChangedSince: the file changed after continuity wrote it.
	ErrChangedSince = errors.New("changed since continuity configure wrote it")
)

// Change is one client's file before and after an edit, not yet written.
type Change struct {
	Client  string
	Path    string
	Existed bool
	Mode    fs.FileMode
	Before  []byte
	After   []byte
}

// Plan reads the client's file at path (absent is an empty file) and
// computes the edit; a malformed file is an error naming it, and nothing
// is written.
func Plan(c Client, path string, s Settings) (*Change, error) {
	ch := &Change{Client: c.Name, Path: path, Mode: 0o600}
	src, err := readLimited(path)
	switch {
	case err == nil:
		ch.Existed, ch.Before = true, src
		if info, err := os.Stat(path); err == nil {
			ch.Mode = info.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, err
	}
	after, err := c.edit(ch.Before, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The edit is checked by reading it back as the client would.
	if got, err := c.target(after, s); err != nil || got != s.BaseURL() {
		return nil, fmt.Errorf("%s: %w: the edited file would send requests to %q (%v), not %s", path, ErrUnsupported, got, err, s.BaseURL())
	}
	ch.After = after
	return ch, nil
}

// Changed reports whether the edit changes the file.
func (ch *Change) Changed() bool { return !ch.Existed || !bytes.Equal(ch.Before, ch.After) }

// Diff is the edit as a unified diff.
func (ch *Change) Diff() string {
	from := ch.Path
	if !ch.Existed {
		from = "/dev/null"
	}
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(ch.Before), B: lines(ch.After),
		FromFile: from, ToFile: ch.Path, Context: 3,
	})
	return d
}

// lines splits b for the diff; an empty file has no lines.
func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return difflib.SplitLines(string(b))
}

// record is FILE.continuity-undo: how the file was before the first edit.
type record struct {
	Existed     bool        `json:"existed"`
	Mode        fs.FileMode `json:"mode"`
	CreatedDirs []string    `json:"createdDirs,omitempty"`
	Wrote       string      `json:"wrote"` // SHA-256 of what continuity last wrote
}

// Apply writes the edit. The first edit of a file saves it as it was
// (FILE.continuity-backup) and records that; later edits keep that first
// backup, so undo always returns to the file before continuity.
func (ch *Change) Apply() error {
	if !ch.Changed() {
		return nil
	}
	rec, err := readRecord(ch.Path)
	if errors.Is(err, ErrNothingToUndo) {
		rec = &record{Existed: ch.Existed, Mode: ch.Mode}
		if !ch.Existed {
			if rec.CreatedDirs, err = mkdirs(filepath.Dir(ch.Path)); err != nil {
				return err
			}
		} else if err := writeAtomic(ch.Path+BackupSuffix, ch.Before, ch.Mode); err != nil {
			return fmt.Errorf("saving the backup: %w", err)
		}
	} else if err != nil {
		return err
	}
	rec.Wrote = digest(ch.After)
	b, _ := json.Marshal(rec)
	if err := writeAtomic(ch.Path+RecordSuffix, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving the undo record: %w", err)
	}
	return writeAtomic(ch.Path, ch.After, ch.Mode)
}

// Undo puts the file at path back as it was before continuity first
// edited it — the same bytes and mode, or no file when there was none —
// and removes the backup and the record. When the file changed since
// continuity wrote it, Undo refuses (ErrChangedSince) unless force.
func Undo(path string, force bool) (existed bool, err error) {
	rec, err := readRecord(path)
	if err != nil {
		return false, err
	}
	now, err := readLimited(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if !force && (err != nil || digest(now) != rec.Wrote) {
		return false, fmt.Errorf("%s: %w; undoing would lose those changes (its state before continuity is in %s)", path, ErrChangedSince, path+BackupSuffix)
	}
	if rec.Existed {
		before, err := os.ReadFile(path + BackupSuffix)
		if err != nil {
			return false, fmt.Errorf("the backup: %w", err)
		}
		if err := writeAtomic(path, before, rec.Mode); err != nil {
			return false, err
		}
		if err := os.Remove(path + BackupSuffix); err != nil {
			return false, err
		}
	} else if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := os.Remove(path + RecordSuffix); err != nil {
		return false, err
	}
	for _, d := range slices.Backward(rec.CreatedDirs) {
		_ = os.Remove(d) // only an empty directory goes; one holding anything else stays
	}
	return rec.Existed, nil
}

// Configured reports whether continuity configure has edited path (and
// not undone it).
func Configured(path string) bool {
	_, err := readRecord(path)
	return err == nil
}

func readRecord(path string) (*record, error) {
	b, err := os.ReadFile(path + RecordSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w: continuity configure has not changed it (no %s)", path, ErrNothingToUndo, filepath.Base(path+RecordSuffix))
	} else if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil || rec.Wrote == "" {
		return nil, fmt.Errorf("%s: %w: not an undo record", path+RecordSuffix, ErrMalformed)
	}
	return &rec, nil
}

// readLimited reads a configuration file of at most MaxFileBytes.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: larger than %d MiB", path, ErrMalformed, MaxFileBytes>>20)
	}
	return b, nil
}

// mkdirs creates dir and its missing parents, returning those it created,
// outermost first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	slices.Reverse(missing)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return missing, nil
}

// writeAtomic replaces path with data: a temporary file in the same
// directory, synced, then renamed over it, so a reader sees the old file
// or the new one and never a part.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

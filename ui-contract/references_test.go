package uicontract_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoReferencesOutsideTheRepository: comments, docs, schemas and the pi
// extension cite the repository's own docs (docs/protocol.md,
// docs/design.md, docs/suppliers.md), never files a clone does not have.
// The names are built here so that this file does not match itself.
func TestNoReferencesOutsideTheRepository(t *testing.T) {
	outside := []string{"PROTOCOL" + ".md", "DESIGN" + ".md", "REFERENCE" + ".md", "STYLE" + ".md", "shared" + "/"}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".json", ".ts":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, name := range outside {
			if strings.Contains(string(b), name) {
				t.Errorf("%s cites %s, which is not in the repository", path, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

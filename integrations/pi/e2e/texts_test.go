package e2e_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestTextsAreTheContractTexts keeps the extension's copy of the
// user-facing texts (an installed package cannot read the repository) byte
// for byte equal to ui-contract/texts.
func TestTextsAreTheContractTexts(t *testing.T) {
	dir := packageDir(t)
	for _, locale := range []string{"en", "zh-CN"} {
		want, err := os.ReadFile(filepath.Join(dir, "..", "..", "ui-contract", "texts", locale+".json"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "texts", locale+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("integrations/pi/texts/%s.json differs from ui-contract/texts/%s.json: copy it again", locale, locale)
		}
	}
}

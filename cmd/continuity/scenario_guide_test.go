package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

// TestScenarioGuideExampleRuns: the complete example in docs/scenarios.md
// passes `continuity scenario run`, and the same file with a wrong
// omittedItems fails naming the member and the value to set.
func TestScenarioGuideExampleRuns(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- scenario example: TestScenarioGuideExampleRuns runs this block -->\n```json\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/scenarios.md has no example block")
	}
	file := filepath.Join(t.TempDir(), "my-switch.json")
	if err := os.WriteFile(file, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := testbin.Run(t, nil, "scenario", "run", file); code != 0 {
		t.Fatalf("scenario run of the guide's example: exit %d\n%s", code, out)
	}
	wrong := strings.Replace(example, `"omittedItems": 2, "strippedIds": 2`, `"omittedItems": 3, "strippedIds": 2`, 1)
	if err := os.WriteFile(file, []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := testbin.Run(t, nil, "scenario", "run", file)
	if code == 0 || !strings.Contains(out, "expect.omittedItems is 3 (3 reasoning items) but continuity omitted 2; if 2 is right, set omittedItems to 2") {
		t.Fatalf("a wrong omittedItems: exit %d\n%s", code, out)
	}
}

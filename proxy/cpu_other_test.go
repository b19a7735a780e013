//go:build !unix

package proxy

// processCPU is not measured where getrusage is missing (Windows): the
// benchmarks then report wall-clock time only.
func processCPU() (int64, bool) { return 0, false }

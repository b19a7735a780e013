package bench

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestCPUFloorSaysWhatTheCoresAllow(t *testing.T) {
	wire := &Row{PeerCPUNsPerOp: 118e6, HostCPUNsPerOp: 14e6}
	filter := &Row{CPUNsPerOp: 73e6}
	got := cpuFloor(wire, filter)
	for _, want := range []string{"plugin 118.0 ms", "host 14.0 ms", "the filter alone 73.0 ms"} {
		if !strings.Contains(got, want) {
			t.Errorf("cpuFloor = %q, want it to say %q", got, want)
		}
	}
	cores := runtime.NumCPU()
	if want := fmt.Sprintf("on %d cores", cores); !strings.Contains(got, want) {
		t.Errorf("cpuFloor = %q, want %q", got, want)
	}
	if got := cpuFloor(&Row{}, filter); got != "" {
		t.Errorf("cpuFloor without the peer's CPU = %q, want nothing", got)
	}
	if got := cpuFloor(wire, nil); got != "" {
		t.Errorf("cpuFloor without a filter row = %q, want nothing", got)
	}
}

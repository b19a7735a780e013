package bench

import "time"

// Cases, in table order. Each row of the size table is one case on one
// payload; ratios compare rows of the same payload.
const (
	CaseFilter     = "filter"
	CaseFilterPre  = "filter (prevalidated)"
	CaseSHA256     = "sha256"
	CaseMemmove    = "memmove"
	CaseJSON       = "encoding/json"
	CaseWire       = "wire round trip"
	CasePipe       = "pipe copy (cat)"
	CaseNodeFull   = "node parse-filter-stringify"
	CaseNodeFilter = "node filter only"
)

// Groups of rows.
const (
	GroupSize      = "size"            // every case on every kind and size
	GroupReasoning = "reasoning-count" // one size, more and more reasoning items
)

// Row is one measured case on one payload. Throughput (MBps, NsPerItem)
// is taken at the best (least) time: on a machine shared with other work,
// noise only ever adds time, so the best of several samples is the
// steadiest estimate of what the code costs, and every case — references
// included — is estimated the same way. Latency is reported as p50 and p99
// of all samples, noise included. MBps counts payload bytes, except for
// sha256, whose bytes are the bytes it hashed (HashedBytes). Ratios are
// throughput ratios against the row of the same payload (higher is faster;
// 0: not measured).
type Row struct {
	Group       string  `json:"group"`
	Case        string  `json:"case"`
	Kind        string  `json:"kind"`
	Size        int     `json:"size"` // nominal
	Bytes       int     `json:"bytes"`
	HashedBytes int     `json:"hashedBytes,omitempty"`
	Items       int     `json:"items"`
	Reasoning   int     `json:"reasoning"`
	Ops         int     `json:"ops"`
	BestNs      int64   `json:"bestNs"`
	P50Ns       int64   `json:"p50Ns"`
	P99Ns       int64   `json:"p99Ns"`
	MBps        float64 `json:"mbPerSec"`
	NsPerItem   float64 `json:"nsPerItem"`
	CPUNsPerOp  int64   `json:"cpuNsPerOp,omitempty"`
	// HostCPUNsPerOp and PeerCPUNsPerOp are, for a round trip through
	// another process (the plugin, cat), the CPU time per operation of
	// this process and of that one (Linux only; the peer's in 10 ms ticks,
	// summed over every sample). Work the peer does after its answer can
	// fall outside every sample, so the peer's figure is a lower bound;
	// a wire round trip's figures also hold its turn's untimed events and
	// agent/request (about 1 ms of the plugin's CPU per turn).
	// On a machine of c cores a round trip takes about their sum over c
	// or more (a little less is possible: the untimed events are in it).
	HostCPUNsPerOp int64   `json:"hostCpuNsPerOp,omitempty"`
	PeerCPUNsPerOp int64   `json:"peerCpuNsPerOp,omitempty"`
	AllocsPerOp    float64 `json:"allocsPerOp,omitempty"`
	// AllocPerByte is bytes allocated per payload byte.
	AllocPerByte float64 `json:"allocPerByte,omitempty"`
	VsSHA256     float64 `json:"vsSha256,omitempty"`
	VsJSON       float64 `json:"vsEncodingJson,omitempty"`
	VsFilter     float64 `json:"vsFilter,omitempty"`
	VsPipe       float64 `json:"vsPipeCopy,omitempty"`
	Note         string  `json:"note,omitempty"`
}

// TurnRow is one turn of the long-session table: its first step carries
// the history (all of it omitted), its second step history plus the new
// step (whose reasoning is kept). Costs are the median over repeats of
// both steps together (the best of a few repeats, as in Row).
type TurnRow struct {
	Turn            int     `json:"turn"`
	HistoryBytes    int     `json:"historyBytes"`
	PayloadBytes    int     `json:"payloadBytes"`
	FilterNs        int64   `json:"filterNs"`
	FilterNsPerByte float64 `json:"filterNsPerByte"`
	WireNs          int64   `json:"wireNs,omitempty"`
	WireNsPerByte   float64 `json:"wireNsPerByte,omitempty"`
}

// Bar is one docs/design.md §6 bar checked against this run's ratios, or,
// in a --repeat series, against every run's (Runs > 1).
type Bar struct {
	Name string `json:"name"`
	Want string `json:"want"`
	// Got says what was measured: in a series, what the worst run measured.
	Got string `json:"got"`
	// Pass: this run passed; in a series, every run passed.
	Pass bool   `json:"pass"`
	Note string `json:"note,omitempty"`
	// Value is the number the bar judges and Limit the bound it is held to
	// (in Unit; for the proxy's time to first byte the bound is that run's
	// filter time plus the slack). HigherIsBetter says which side passes.
	// They are what orders the runs of a series by how near each came to
	// failing. A bar not measured has Value and Limit 0.
	Value          float64 `json:"value"`
	Limit          float64 `json:"limit"`
	Unit           string  `json:"unit,omitempty"`
	HigherIsBetter bool    `json:"higherIsBetter,omitempty"`
	// Runs is how many runs judged the bar, Passed how many of them it
	// passed, WorstRun (from 1) the run nearest to failing or furthest
	// past it, whose Got and Value the bar carries.
	Runs     int `json:"runs"`
	Passed   int `json:"passed"`
	WorstRun int `json:"worstRun"`
}

// Report is everything one run measured.
type Report struct {
	Started  time.Time `json:"started"`
	Duration string    `json:"duration"`
	Machine  Machine   `json:"machine"`
	Rows     []Row     `json:"rows"`
	Session  []TurnRow `json:"session,omitempty"`
	// SessionGrowth is the per-byte cost of the last turn over the median
	// per-byte cost of the later half of the session (filter, wire).
	SessionGrowth [2]float64 `json:"sessionGrowth"`
	// Events is the event-stream case (nil when not measured).
	Events *EventStream `json:"events,omitempty"`
	// Proxy and ProxyStream compare `continuity proxy` with a plain
	// reverse proxy (none when not measured).
	Proxy       []ProxyRow   `json:"proxy,omitempty"`
	ProxyStream *ProxyStream `json:"proxyStream,omitempty"`
	// ProxyConcurrent is many sessions at once through both (nil when not
	// measured).
	ProxyConcurrent *ProxyConcurrent `json:"proxyConcurrent,omitempty"`
	Bars            []Bar            `json:"bars"`
	Notes           []string         `json:"notes,omitempty"`
	// Runs holds every run of a --repeat series in order (each with its
	// own bars), when there is more than one; the report's own rows,
	// tables and notes are then the last run's, its Bars are over all runs
	// and Started and Duration span the series.
	Runs []*Report `json:"runs,omitempty"`
}

// Machine says where the numbers come from.
type Machine struct {
	GoVersion string `json:"goVersion"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	CPU       string `json:"cpu,omitempty"`
	Node      string `json:"node"`
	Binary    string `json:"binary,omitempty"`
}

// find returns the row of a case on a payload, or nil.
func (r *Report) find(group, cas, kind string, size int) *Row {
	for i := range r.Rows {
		x := &r.Rows[i]
		if x.Group == group && x.Case == cas && x.Kind == kind && x.Size == size {
			return x
		}
	}
	return nil
}

// ratios fills the ratio columns of every row from the reference rows of
// the same payload.
func (r *Report) ratios() {
	for i := range r.Rows {
		x := &r.Rows[i]
		ratio := func(cas string) float64 {
			ref := r.find(x.Group, cas, x.Kind, x.Size)
			if ref == nil || ref == x || ref.MBps == 0 {
				return 0
			}
			return x.MBps / ref.MBps
		}
		x.VsSHA256, x.VsJSON, x.VsFilter, x.VsPipe = ratio(CaseSHA256), ratio(CaseJSON), ratio(CaseFilter), ratio(CasePipe)
	}
}

// rowOf makes a row from a sample.
func rowOf(group, cas string, p Payload, s sample) Row {
	best, p50, p99 := s.times[0], quantile(s.times, 0.5), quantile(s.times, 0.99)
	r := Row{Group: group, Case: cas, Kind: p.Kind, Size: p.Size, Bytes: len(p.Body), Items: p.Items, Reasoning: p.Reasoning(),
		Ops: len(s.times), BestNs: best.Nanoseconds(), P50Ns: p50.Nanoseconds(), P99Ns: p99.Nanoseconds(),
		MBps: mbps(len(p.Body), best), CPUNsPerOp: s.cpu.Nanoseconds(), AllocsPerOp: s.allocs,
		AllocPerByte: s.allocBytes / float64(len(p.Body))}
	if p.Items > 0 {
		r.NsPerItem = float64(best.Nanoseconds()) / float64(p.Items)
	}
	return r
}

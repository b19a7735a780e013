package bench

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// runner carries one run's state: the report being filled, and the
// processes the run talks to (each started once and reused).
type runner struct {
	cfg  Config
	rep  *Report
	tmp  string
	plug *Plugin // nil without a binary
	pipe *Pipe   // nil without cat
	node *Node   // nil without node
}

// inProcessCases are measured on every payload of the size table.
var inProcessCases = []string{CaseFilter, CaseFilterPre, CaseSHA256, CaseMemmove, CaseJSON}

// Run measures everything cfg asks for and returns the report, bars
// included. It fails only when a measurement itself fails (a wrong result,
// a process that dies); missing node or cat is noted in the report.
func Run(cfg Config) (*Report, error) {
	if len(cfg.Kinds) == 0 {
		cfg.Kinds = Kinds
	}
	cfg.Runs = max(1, cfg.Runs)
	tmp, err := os.MkdirTemp("", "continuity-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r := &runner{cfg: cfg, tmp: tmp, rep: &Report{Started: time.Now(), Machine: machine(cfg.Binary)}}
	defer r.close()
	if err := r.start(); err != nil {
		return nil, err
	}
	sizes := slices.Clone(cfg.Sizes)
	slices.Sort(sizes)
	for _, size := range sizes {
		for _, kind := range cfg.Kinds {
			p, err := Generate(kind, size)
			if err != nil {
				return nil, err
			}
			if err := r.sizeRow(p); err != nil {
				return nil, err
			}
		}
	}
	if err := r.reasoningCounts(); err != nil {
		return nil, err
	}
	if err := r.session(); err != nil {
		return nil, err
	}
	if err := r.eventStream(); err != nil {
		return nil, err
	}
	if err := r.proxyRows(); err != nil {
		return nil, err
	}
	r.rep.ratios()
	r.rep.Bars = append(bars(r.rep, sizes), proxyBars(r.rep)...)
	for i := range r.rep.Bars {
		b := &r.rep.Bars[i]
		b.Runs, b.WorstRun = 1, 1
		if b.Pass {
			b.Passed = 1
		}
	}
	r.rep.Duration = time.Since(r.rep.Started).Round(time.Second).String()
	return r.rep, nil
}

// start launches the plugin, cat and node as far as they are available.
func (r *runner) start() error {
	if r.cfg.Binary != "" {
		dir, err := os.MkdirTemp(r.tmp, "data-")
		if err != nil {
			return err
		}
		if r.plug, err = StartPlugin(r.cfg.Binary, dir); err != nil {
			return fmt.Errorf("bench: starting %s serve: %w", r.cfg.Binary, err)
		}
	} else {
		r.note("wire rows skipped: no continuity binary given")
	}
	var err error
	if r.pipe, err = StartPipe(); err != nil {
		r.pipe = nil
		r.note("pipe copy rows skipped: cannot run cat: " + err.Error())
	}
	if r.cfg.NoNode {
		r.rep.Machine.Node = "skipped (--no-node)"
	} else if r.node, err = FindNode(r.tmp); err != nil {
		r.node = nil
		r.rep.Machine.Node = "absent: " + err.Error()
		r.note("Node.js rows skipped: " + err.Error())
	} else {
		r.rep.Machine.Node = r.node.Version
	}
	return nil
}

func (r *runner) close() {
	if r.plug != nil {
		r.plug.Close()
	}
	if r.pipe != nil {
		r.pipe.Close()
	}
}

// sizeRow measures every case on one payload of the size table: the
// in-process cases, the wire and the pipe copy together, interleaved, so
// that every ratio of the table compares samples taken side by side; then
// Node.js, which runs its own loop.
func (r *runner) sizeRow(p Payload) error {
	var cs []benchCase
	for _, c := range inProcessCases {
		fn, err := inProcessOp(c, p)
		if err != nil {
			return err
		}
		cs = append(cs, benchCase{name: c, job: job{fn: fn, b: r.budget()}})
	}
	wire, err := r.wireCases(p)
	if err != nil {
		return err
	}
	if err := r.measureCases(GroupSize, p, append(cs, wire...)); err != nil {
		return err
	}
	return r.nodeRows(p)
}

// budget is the sampling budget of in-process and Node cases.
func (r *runner) budget() budget {
	return budget{min: r.cfg.Runs, dur: r.cfg.MinDuration, max: 1000}
}

// wireBudget samples three times as long, and at least LatencySamples
// times up to 1 MiB, for p99.
func (r *runner) wireBudget(size int) budget {
	b := budget{min: r.cfg.Runs, dur: 3 * r.cfg.MinDuration, max: 2000}
	if size <= latencySize {
		b.min = max(b.min, r.cfg.LatencySamples)
	}
	return b
}

// nodeRows runs reference.js on p, written to a file.
func (r *runner) nodeRows(p Payload) error {
	if r.node == nil {
		return nil
	}
	r.progress(p, "node")
	file := r.tmp + "/payload.json"
	if err := os.WriteFile(file, p.Body, 0o600); err != nil {
		return err
	}
	defer os.Remove(file)
	res, err := r.node.Bench([]string{file}, r.cfg.Runs, r.cfg.MinDuration)
	if err != nil {
		return err
	}
	t := res[0]
	if t.Omitted != p.Reasoning() || t.Items != p.Items {
		return fmt.Errorf("bench: reference.js omitted %d of %d reasoning items (%d items, want %d)", t.Omitted, p.Reasoning(), t.Items, p.Items)
	}
	r.rep.Rows = append(r.rep.Rows, rowOf(GroupSize, CaseNodeFull, p, nodeSample(t.FullNs)),
		rowOf(GroupSize, CaseNodeFilter, p, nodeSample(t.FilterNs)))
	return nil
}

func (r *runner) note(s string) { r.rep.Notes = append(r.rep.Notes, s) }

func (r *runner) progress(p Payload, what string) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "bench: %-12s %8s  %s\n", p.Kind, FormatSize(p.Size), what)
	}
}

// machine describes this machine.
func machine(binary string) Machine {
	m := Machine{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Binary: binary}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// errWrongReply reports a plugin reply that does not match the filter run
// in process on the same payload.
var errWrongReply = errors.New("bench: the plugin's reply differs from the filter's result")

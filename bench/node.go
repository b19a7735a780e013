package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// referenceJS is node/reference.js, embedded so that `continuity bench`
// runs it from any directory.
//
//go:embed node/reference.js
var referenceJS []byte

// Node runs the Node.js reference implementation.
type Node struct {
	bin     string
	script  string
	Version string
}

// NodeTimes is what reference.js measured on one payload file.
type NodeTimes struct {
	File     string  `json:"file"`
	Bytes    int     `json:"bytes"`
	Items    int     `json:"items"`
	Omitted  int     `json:"omitted"`
	FullNs   []int64 `json:"fullNs"`
	FilterNs []int64 `json:"filterNs"`
}

// FindNode looks node up on PATH and writes the reference script into dir.
// The error says why node cannot be used; the report shows it instead of
// the Node rows.
func FindNode(dir string) (*Node, error) {
	bin, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is not on PATH")
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("node --version: %w", err)
	}
	script := filepath.Join(dir, "reference.js")
	if err := os.WriteFile(script, referenceJS, 0o644); err != nil {
		return nil, err
	}
	return &Node{bin: bin, script: script, Version: strings.TrimSpace(string(out))}, nil
}

// Bench measures each payload file (see reference.js) with at least runs
// samples and, for small files, more until minDur has passed.
func (n *Node) Bench(files []string, runs int, minDur time.Duration) ([]NodeTimes, error) {
	args := []string{n.script, "bench", "--runs", strconv.Itoa(runs), "--min-ms", strconv.FormatInt(minDur.Milliseconds(), 10)}
	out, err := n.run(append(args, files...)...)
	if err != nil {
		return nil, err
	}
	var res []NodeTimes
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var t NodeTimes
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("bench: reading reference.js output: %w", err)
		}
		res = append(res, t)
	}
	if len(res) != len(files) {
		return nil, fmt.Errorf("bench: reference.js measured %d of %d files", len(res), len(files))
	}
	return res, nil
}

// Emit filters the files as the successive payloads of one turn, writes
// the outputs to outDir/<index>.json and returns the omitted counts.
func (n *Node) Emit(outDir string, files []string) ([]int, error) {
	out, err := n.run(append([]string{n.script, "emit", outDir}, files...)...)
	if err != nil {
		return nil, err
	}
	var res struct {
		Omitted []int `json:"omitted"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("bench: reading reference.js output: %w", err)
	}
	return res.Omitted, nil
}

func (n *Node) run(args ...string) ([]byte, error) {
	cmd := exec.Command(n.bin, args...)
	var stderr tail
	stderr.max = 4 << 10
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("bench: node reference.js: %w: %s", err, stderr.String())
	}
	return out, nil
}

// nodeSample turns reference.js timings into a sample (no allocation or
// CPU figures: they belong to another process).
func nodeSample(ns []int64) sample {
	s := sample{times: make([]time.Duration, len(ns))}
	for i, v := range ns {
		s.times[i] = time.Duration(v)
	}
	sortDurations(s.times)
	return s
}

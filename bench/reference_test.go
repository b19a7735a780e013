package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/continuity-dev/continuity/filter"
)

// turnCase is a sequence of payloads of one turn and how many reasoning
// items each must lose.
type turnCase struct {
	name    string
	steps   [][]byte
	omitted []int
}

// turnCases are the hand-written turn in testdata (the second step repeats
// the first step's reasoning, one ciphertext written with a "\/" escape the
// first time and a plain "/" the second, and adds reasoning of its own)
// and a generated payload of each kind.
func turnCases(t *testing.T) []turnCase {
	t.Helper()
	var steps [][]byte
	for _, f := range []string{"step1.json", "step2.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "turn", f))
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, b)
	}
	cases := []turnCase{{"testdata/turn", steps, []int{2, 2}}}
	for _, kind := range Kinds {
		p, err := Generate(kind, 64<<10)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, turnCase{"generated/" + kind, [][]byte{p.Body}, []int{p.Reasoning()}})
	}
	return cases
}

// filterOutputs runs the steps through filter.Turn without paired-id
// stripping (the references do not strip) and returns the final bodies.
func filterOutputs(t *testing.T, c turnCase) [][]byte {
	t.Helper()
	turn := filter.NewTurn(filter.Options{})
	var outs [][]byte
	for i, step := range c.steps {
		res, err := turn.Apply(context.Background(), step, nil)
		if err != nil {
			t.Fatalf("%s step %d: %v", c.name, i+1, err)
		}
		if res.Omitted.Items != c.omitted[i] {
			t.Fatalf("%s step %d: the filter omitted %d items, want %d", c.name, i+1, res.Omitted.Items, c.omitted[i])
		}
		outs = append(outs, res.Final(step))
	}
	return outs
}

// sameJSON fails unless a and b decode to the same value.
func sameJSON(t *testing.T, what string, a, b []byte) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !reflect.DeepEqual(x, y) {
		t.Fatalf("%s: the outputs differ", what)
	}
}

func TestJSONTurnOmitsWhatTheFilterOmits(t *testing.T) {
	for _, c := range turnCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want := filterOutputs(t, c)
			var jt JSONTurn
			for i, step := range c.steps {
				out, omitted, err := jt.Apply(step)
				if err != nil {
					t.Fatal(err)
				}
				if omitted != c.omitted[i] {
					t.Fatalf("step %d: encoding/json omitted %d items, want %d", i+1, omitted, c.omitted[i])
				}
				sameJSON(t, "step "+strconv.Itoa(i+1), want[i], out)
			}
		})
	}
}

func TestJSONTurnRejectsABodyWithoutInput(t *testing.T) {
	for _, body := range []string{`{"model":"m"}`, `[1]`, `{"input":{}}`, `{"input":[1`} {
		if _, _, err := new(JSONTurn).Apply([]byte(body)); err == nil {
			t.Errorf("%s: no error", body)
		}
	}
}

func TestNodeReferenceOmitsWhatTheFilterOmits(t *testing.T) {
	node, err := FindNode(t.TempDir())
	if err != nil {
		t.Fatalf("the Node reference needs node on PATH (Node 20 is part of the machine): %v", err)
	}
	for _, c := range turnCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want := filterOutputs(t, c)
			dir := t.TempDir()
			var files []string
			for i, step := range c.steps {
				f := filepath.Join(dir, "in"+strconv.Itoa(i)+".json")
				if err := os.WriteFile(f, step, 0o600); err != nil {
					t.Fatal(err)
				}
				files = append(files, f)
			}
			omitted, err := node.Emit(dir, files)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(omitted, c.omitted) {
				t.Fatalf("node omitted %v, want %v", omitted, c.omitted)
			}
			for i := range c.steps {
				got, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)+".json"))
				if err != nil {
					t.Fatal(err)
				}
				sameJSON(t, "step "+strconv.Itoa(i+1), want[i], got)
			}
		})
	}
}

// TestNodeBenchReportsTimings runs the bench mode of reference.js once on
// a small payload: one sample per run and the counts of the payload.
func TestNodeBenchReportsTimings(t *testing.T) {
	node, err := FindNode(t.TempDir())
	if err != nil {
		t.Fatalf("the Node reference needs node on PATH (Node 20 is part of the machine): %v", err)
	}
	p, err := Generate(KindReasoning, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(f, p.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := node.Bench([]string{f}, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Bytes != len(p.Body) || r.Items != p.Items || r.Omitted != p.Reasoning() || len(r.FullNs) < 2 || len(r.FilterNs) < 2 {
		t.Fatalf("got %d bytes, %d items, %d omitted, %d/%d samples", r.Bytes, r.Items, r.Omitted, len(r.FullNs), len(r.FilterNs))
	}
}

package jsonscan

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// membersWith runs a validating Members scan with the split on or off and
// returns the members, or the offset of the syntax error (-1: not an
// object, -2: another error).
func membersWith(b []byte, split bool) ([]Member, int) {
	from := parallelFrom
	defer func() { parallelFrom = from }()
	parallelFrom = 1 << 62
	if split {
		parallelFrom = 0
	}
	s := Scanner{B: b}
	ms, err := s.Members(nil)
	var se *SyntaxError
	switch {
	case err == nil:
		return ms, 0
	case errors.As(err, &se):
		return nil, se.Offset
	case errors.As(err, new(ErrNotObject)):
		return nil, -1
	}
	return nil, -2
}

// TestSplitScanMatchesSequentialScan checks more than validity: the split
// scan finds the same members and, for invalid documents, names the same
// byte as a sequential scan, for documents where the split lands in arrays
// at various depths, in a string, in a top-level array and past the last
// array.
func TestSplitScanMatchesSequentialScan(t *testing.T) {
	docs := []string{
		`{"a":[{"x":1},{"y":[{"p":1},{"q":2}]},{"z":"w"}],"b":{"c":[{"d":1},{"e":2}]},"f":[[{"g":1},{"h":2}],[{"i":3},{"j":4}]]}`,
		`[{"a":1},{"b":2},{"c":3},{"d":4}]`,
		`{"s":"},{\"x\":1},{\"y\":2}","t":[{"u":1},{"v":2}],"w":"},{\"k\":3}"}`,
		`{"a":[{"x":1},{"y":2}],"tail":{"k":"},{\"q\":1}","m":[1,2,3]}}`,
		`{"deep":[[[[{"a":[{"b":1},{"c":2}]},{"d":3}]]]],"e":[{"f":1},{"g":2}]}`,
	}
	structural := []byte(`{}[]",:\ 0-e.tn`)
	rng := rand.New(rand.NewPCG(31, 32))
	for _, d := range docs {
		for n := 0; n < 4000; n++ {
			b := []byte(d)
			if n > 0 {
				b = mutate(rng, b, structural)
			}
			seq, seqErr := membersWith(b, false)
			par, parErr := membersWith(b, true)
			if seqErr != parErr || !slices.Equal(seq, par) {
				t.Fatalf("%s: sequential %v/%d, split %v/%d", b, seq, seqErr, par, parErr)
			}
		}
	}
}

// TestSplitScanOfLargeFrame runs the real threshold on a large compact
// frame whose second half is a long array of objects, with a defect placed
// just before, at and just after the split point and at the run's end.
func TestSplitScanOfLargeFrame(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"jsonrpc":"2.0","id":1,"method":"llm/payload","params":{"payload":{"input":[`)
	for i := range 3000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"type":"message","content":"` + strings.Repeat("x", 100) + `"}`)
	}
	sb.WriteString(`]}}}`)
	good := []byte(sb.String())
	if len(good) < ParallelFrom {
		t.Fatal("the frame is too small to split")
	}
	sp := startSplit(good)
	<-sp.done
	for _, off := range []int{-2, -1, 0, 1, 2, 3} {
		for _, c := range []byte{'}', ']', ',', 'x', '"', '\x00'} {
			for _, at := range []int{sp.at + off, sp.end + off, len(good) - 4 + off} {
				b := slices.Clone(good)
				b[at] = c
				seq, seqErr := membersWith(b, false)
				par, parErr := membersWith(b, true)
				if seqErr != parErr || !slices.Equal(seq, par) {
					t.Fatalf("byte %d set to %q: sequential %d, split %d", at, c, seqErr, parErr)
				}
			}
		}
	}
}

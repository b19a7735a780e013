package bench

import (
	"reflect"
	"testing"
)

func TestParseSizes(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		bad  bool
	}{
		{in: "64KiB,1MiB,64MiB", want: []int{64 << 10, 1 << 20, 64 << 20}},
		{in: " 1M , 2K,300B, 1GiB", want: []int{1 << 20, 2 << 10, 300, 1 << 30}},
		{in: "4096", want: []int{4096}},
		{in: "", bad: true},
		{in: "1TiB", bad: true},
		{in: "2GiB", bad: true},
		{in: "0", bad: true},
		{in: "-1MiB", bad: true},
		{in: "MiB", bad: true},
	}
	for _, c := range cases {
		got, err := ParseSizes(c.in)
		if c.bad != (err != nil) || !c.bad && !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseSizes(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int]string{64 << 10: "64 KiB", 64 << 20: "64 MiB", 1536 << 10: "1.5 MiB", 165767 << 10: "161.9 MiB", 1023 << 10: "1023 KiB",
		(1 << 20) + 1: "1.0 MiB", 1500: "1.5 KiB", 12: "12 B"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSpecsScaleWithSize checks that every kind hits its size (within one
// generator step) and that the reasoning payload is docs/design.md §6's at
// 64 MiB: 4,096 items.
func TestSpecsScaleWithSize(t *testing.T) {
	for _, kind := range Kinds {
		for _, size := range []int{64 << 10, 1 << 20} {
			p, err := Generate(kind, size)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Body) < size || len(p.Body) > size+size/4 {
				t.Errorf("%s %d: %d bytes", kind, size, len(p.Body))
			}
			if (kind == KindOrdinary) != (p.Reasoning() == 0) {
				t.Errorf("%s %d: %d reasoning items", kind, size, p.Reasoning())
			}
		}
	}
	if n := reasoningItems(64 << 20); n != 4096 {
		t.Errorf("reasoning items at 64 MiB = %d, want 4096", n)
	}
	if _, err := Generate("nope", 1<<10); err == nil {
		t.Error("an unknown kind must fail")
	}
}

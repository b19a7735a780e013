package filter

import "slices"

// roomFor returns s with room for n more elements, doubling its capacity
// when it must grow. append grows a large slice by a quarter at a time,
// so a slice that reaches k elements one append at a time has allocated
// about 5k and copied about 4k; doubling allocates about 2k and copies
// about k. A 64 MiB payload's items reach 27,000 (2.6 MB): growing them by
// doubling saves about 7 MB of allocation per call, and its copying.
func roomFor[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return slices.Grow(s, max(n, len(s), 16))
}

package filter

// appendCuts appends the byte ranges that remove the dropped elements of one
// container (array elements or object members, n of them, at(k) being the
// k-th element's bytes) so that what remains is valid JSON with every kept
// byte in place. A run of dropped elements goes together with the separator
// before it; a run at the start of the container goes with the separator
// after it instead; when everything is dropped, the elements and the
// separators between them go and the brackets keep their whitespace.
func appendCuts(dst []span, n int, at func(int) span, drop func(int) bool) []span {
	prevKept := -1
	for k := 0; k < n; k++ {
		if drop(k) {
			continue
		}
		switch {
		case prevKept < 0 && k > 0:
			dst = append(dst, span{at(0).start, at(k).start})
		case prevKept >= 0 && k > prevKept+1:
			dst = append(dst, span{at(prevKept).end, at(k - 1).end})
		}
		prevKept = k
	}
	switch {
	case n == 0:
	case prevKept < 0:
		dst = append(dst, span{at(0).start, at(n - 1).end})
	case prevKept < n-1:
		dst = append(dst, span{at(prevKept).end, at(n - 1).end})
	}
	return dst
}

package filter

// Shape is what a validated payload shows of itself to a caller that must
// place the request before deciding on its items (the proxy reads the
// session key and the turn signal from it): the raw JSON of its top-level
// members and of each input item's type and role, all slices of the
// payload, read by the filter's own scan rather than a second walk.
type Shape struct {
	payload []byte
	d       *doc
}

// Members calls fn with each top-level member's name (quotes included) and
// value as they appear, in order, duplicates included.
func (sh Shape) Members(fn func(name, value []byte)) {
	for _, m := range sh.d.top {
		fn(sh.payload[m.KeyStart:m.KeyEnd], sh.payload[m.ValStart:m.ValEnd])
	}
}

// Items calls fn with each input item's type and role values (the last
// role when it repeats), nil when the item has none; none when input is
// the string shorthand or absent.
func (sh Shape) Items(fn func(typ, role []byte)) {
	for k := range sh.d.items {
		it := &sh.d.items[k]
		fn(sh.value(it.typ), sh.value(it.role))
	}
}

func (sh Shape) value(v span) []byte {
	if v.start == v.end {
		return nil
	}
	return sh.payload[v.start:v.end]
}

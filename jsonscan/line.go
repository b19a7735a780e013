package jsonscan

// WriteLine feeds the bytes of p up to its first newline (all of p when
// it has none) and returns how many that is. An NDJSON frame ends at its
// first newline — inside a string a byte JSON does not allow, elsewhere
// whitespace — and the Validator looks at every byte anyway, so the wire
// need not search each read for the newline before it feeds it (a second
// pass over every byte of a 64 MiB payload on the read loop). What it
// feeds is validated exactly as Write validates it.
func (v *Validator) WriteLine(p []byte) int {
	v.line = true
	base := v.off
	n := v.run(p, 0, base)
	v.line = false
	v.off = base + n
	return n
}

package strictjson

import "github.com/continuity-dev/continuity/jsonscan"

// Duplicate returns the decoded name of the first member of ms whose name
// an earlier member already had, for readers that scan only the members
// they need instead of walking the whole document (a large envelope whose
// payload is passed through). Names are compared by value, as WTF-8, so
// "a" and "\u0061" are one name and "a\ud800" and "a\udbff" are two. ms
// must be members of sc.B, as Scanner.Members returns them.
//
// It is Check's rule, applied to one level: everywhere params are read,
// either the whole document goes through Check or Decode (every schema
// check does) or its top level goes through Duplicate and the rest
// through a schema check, so no two readers of one frame disagree about
// which member names are one name (TestDuplicateIsCheckAtTheTop).
func Duplicate(sc *jsonscan.Scanner, ms []jsonscan.Member) (name string, found bool) {
	seen := make(map[string]struct{}, len(ms))
	for _, m := range ms {
		v, _ := sc.Decoded(sc.B[m.KeyStart+1 : m.KeyEnd-1])
		if _, dup := seen[string(v)]; dup {
			return string(v), true
		}
		seen[string(v)] = struct{}{}
	}
	return "", false
}

package strictjson

import "unsafe"

// view is b as a string without a copy. It is only used for the strings and
// numbers of a Borrowed tree, whose type says that it must not outlive the
// document: validating a 64 MiB member must not cost another 64 MiB.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

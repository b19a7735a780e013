//go:build !race

package testbin

// raceBuild is false for an ordinary test run: the binary is built the way
// hosts get it.
const raceBuild = false

//go:build race

package testbin

// raceBuild is set when the tests themselves run under -race: the binary
// they start is then race-instrumented as well.
const raceBuild = true

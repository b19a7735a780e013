package boundary

import "testing"

// TestRestatePositive (issue 28 item 5): the person's negations become
// positive scope; past residue is removed, as RewritePositive does.
func TestRestatePositive(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Don't worry about the flaky test failures.", "The flaky test failures are out of scope."},
		{"Never mind the deprecation warnings, fix the crash.", "The deprecation warnings are out of scope, fix the crash."},
		{"Skip the integration tests for now.", "The integration tests are out of scope for now."},
		{"Fix the parser and ignore the lint warning.", "Fix the parser and the lint warning is out of scope."},
		{"Ignore the old error, the build passes now.", "The build passes now."},
		{"Forget the old approach.", "The old approach is out of scope."},
		{"不用管那些不稳定的测试失败。", "那些不稳定的测试失败不在本任务范围内。"},
		{"别管废弃警告，先修崩溃。", "废弃警告不在本任务范围内，先修崩溃。"},
		{"先不管集成测试了。", "集成测试不在本任务范围内。"},
		{"Keep the API unchanged.", "Keep the API unchanged."},
	} {
		got := restatePositive(c.in)
		if got != c.want {
			t.Errorf("restatePositive(%q) = %q, want %q", c.in, got, c.want)
		}
		if _, ok := dismissed(got); ok || HasNegatedResidue(got) {
			t.Errorf("restatePositive(%q) = %q still negates", c.in, got)
		}
	}
}

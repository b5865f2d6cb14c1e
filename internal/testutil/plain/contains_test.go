package plain

import "testing"

// recorder is a testing.TB that keeps what failed it.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}

// TestContainsAndLacks: each fails once for what is missing (or present),
// and not at all when all is as wanted.
func TestContainsAndLacks(t *testing.T) {
	r := &recorder{TB: t}
	Contains(r, "out", "a b c", "a", "c")
	Lacks(r, "out", "a b c", "d")
	if len(r.errors) != 0 {
		t.Fatalf("failed on what holds: %q", r.errors)
	}
	Contains(r, "out", "a b c", "a", "x", "y")
	Lacks(r, "out", "a b c", "b", "z")
	if len(r.errors) != 2 {
		t.Errorf("%d failures, want one from each", len(r.errors))
	}
}

package clitest

import (
	"fmt"
	"strings"
	"testing"
)

// fatalRecorder is a test that keeps what Fatalf says instead of failing.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}

// TestMustRunMasksPasswords: a failed command's line in the test's log
// shows its URLs' passwords masked, as txnbench itself prints them.
func TestMustRunMasksPasswords(t *testing.T) {
	r := &fatalRecorder{TB: t}
	func() {
		defer func() { recover() }()
		MustRun(r, "run", "no-such-workload", "--db", "postgres://u:s3cret@127.0.0.1:1/x")
	}()
	if r.msg == "" || strings.Contains(r.msg, "s3cret") || !strings.Contains(r.msg, "postgres://u:xxxxx@127.0.0.1:1/x") {
		t.Errorf("MustRun's failure: %q", r.msg)
	}
}

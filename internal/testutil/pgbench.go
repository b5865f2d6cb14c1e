package testutil

import (
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// pgbenchBin caches Pgbench's answer for the process.
var pgbenchBin struct {
	once sync.Once
	path string
}

// Pgbench is NeedPgbench's pgbench without Debian's pg_wrapper in front of
// it: when NeedPgbench finds /usr/bin/pgbench, a link to the Perl script
// that picks a version and then runs /usr/lib/postgresql/N/bin/pgbench,
// Pgbench returns the binary of the same version (the one whose --version
// says what the wrapper's says). The wrapper costs about 50 ms of CPU a
// run, and a differential test runs pgbench hundreds of times. When the
// binary cannot be told, it is NeedPgbench's path.
func Pgbench(t testing.TB) string {
	t.Helper()
	p := NeedPgbench(t)
	pgbenchBin.once.Do(func() { pgbenchBin.path = unwrapPgbench(p) })
	if pgbenchBin.path == "" {
		return p
	}
	return pgbenchBin.path
}

// unwrapPgbench is the binary behind the pg_wrapper link p, or "" when p
// is no such link or no binary has the wrapper's version.
func unwrapPgbench(p string) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil || filepath.Base(real) != "pg_wrapper" {
		return ""
	}
	want, err := exec.Command(p, "--version").Output()
	if err != nil {
		return ""
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	for _, b := range bins {
		if got, err := exec.Command(b, "--version").Output(); err == nil && string(got) == string(want) {
			return b
		}
	}
	return ""
}

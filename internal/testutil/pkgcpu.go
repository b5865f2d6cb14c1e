package testutil

import (
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
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

// SharedPostgresCopy returns the URL of a new database on the package's
// shared cluster (SharedPostgres), a copy of the database at template (a
// URL SharedPostgres returned, which no session may be using): tests that
// need the same tables fill them once and copy the database (a file copy
// in the server) instead of filling each their own.
func SharedPostgresCopy(t testing.TB, template string) string {
	t.Helper()
	u, err := url.Parse(template)
	if err != nil {
		t.Fatal(err)
	}
	from := strings.TrimPrefix(u.Path, "/")
	shared.mu.Lock()
	c := shared.c
	shared.dbs++
	name := fmt.Sprintf("t%d", shared.dbs)
	shared.mu.Unlock()
	if c == nil {
		t.Fatal("SharedPostgresCopy: no shared cluster: template is not SharedPostgres's")
	}
	Exec(t, c.URL(), fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, from))
	u.Path = "/" + name
	return u.String()
}

// DatabaseURL is u with its database replaced by name.
func DatabaseURL(t testing.TB, u, name string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p.Path = "/" + name
	return p.String()
}

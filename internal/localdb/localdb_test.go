package localdb

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/tempdir"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// needBin returns the PostgreSQL bin directory, skipping the test when the
// binaries are missing (see need).
func needBin(t *testing.T) string {
	t.Helper()
	return needFound(t, FindBinDir)
}

// needFound is the binary find finds by itself (no hint), skipping the
// test when it is missing (see need).
func needFound(t *testing.T, find func(hint string) (string, error)) string {
	t.Helper()
	bin, err := find("")
	need(t, err)
	return bin
}

// need skips the test when err says a binary it needs is missing, unless
// CI is set, where that is a failure.
func need(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set and %v", err)
	}
	t.Skipf("skipping: %v", err)
}

// errSays fails t unless err is an error whose text holds each of wants;
// what names the call that returned it.
func errSays(t *testing.T, what string, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s succeeded, want an error saying %q", what, wants)
		return
	}
	plain.Contains(t, what+"'s error", err.Error(), wants...)
}

// firstLineSays fails t unless err's first line holds each of wants (the
// rest is a log's tail).
func firstLineSays(t *testing.T, what string, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s succeeded, want an error saying %q", what, wants)
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	plain.Contains(t, what+"'s first line", first, wants...)
}

// noneLeft is a check that dirs lists as many directories as it does now.
func noneLeft(t *testing.T, dirs func(*testing.T) map[string]bool) func() {
	before := dirs(t)
	return func() {
		t.Helper()
		if after := dirs(t); len(after) != len(before) {
			t.Errorf("directories left behind: before %v, after %v", before, after)
		}
	}
}

func start(t *testing.T, o Options) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	t0 := time.Now()
	c, err := Start(ctx, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("Start took %v (port %d, pid %d, dir %s)", time.Since(t0).Round(time.Millisecond), c.Port(), c.PID(), c.Dir())
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// pickBusyFirst makes the next port pick return busy (a port someone took
// first) and the picks after it free ports, until the test ends. It
// returns the count of picks.
func pickBusyFirst(t *testing.T, busy int) *int {
	calls := 0
	pickPortFn = func() (int, error) {
		calls++
		if calls == 1 {
			return busy, nil
		}
		return pickPort()
	}
	t.Cleanup(func() { pickPortFn = pickPort })
	return &calls
}

// ourDirs lists cluster directories in os.TempDir() owned by this process.
func ourDirs(t *testing.T) map[string]bool {
	t.Helper()
	return ownedDirs(t, dirPrefix)
}

// ownedDirs lists the directories in os.TempDir() named prefix* that this
// process owns (tempdir.Owner).
func ownedDirs(t *testing.T, prefix string) map[string]bool {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, m := range matches {
		if pid, _, err := tempdir.Owner(m); err == nil && pid == os.Getpid() {
			dirs[m] = true
		}
	}
	return dirs
}

func assertReady(t *testing.T, c *Cluster) {
	t.Helper()
	pm, err := readPostmasterPid(filepath.Join(c.Dir(), "data"))
	if err != nil {
		t.Fatalf("reading postmaster.pid: %v", err)
	}
	if pm.status != "ready" || pm.pid != c.PID() || pm.port != c.Port() {
		t.Fatalf("postmaster.pid = %+v, want ready, pid %d, port %d", pm, c.PID(), c.Port())
	}
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.Port()), 2*time.Second)
	if err != nil {
		t.Fatalf("dialing the server: %v", err)
	}
	_ = conn.Close()
}

func assertDead(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("kill(%d, 0) = %v, want ESRCH: the postmaster is still there", pid, err)
	}
}

func TestStartStop(t *testing.T) {
	bin := needBin(t)
	c := start(t, Options{})
	assertReady(t, c)

	if p := c.Port(); p < portMin || p > portMax {
		t.Errorf("Port() = %d, want %d-%d", p, portMin, portMax)
	}
	if want := fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/postgres?sslmode=disable&require_auth=scram-sha-256", c.Password(), c.Port()); c.URL() != want || len(c.Password()) < 32 {
		t.Errorf("URL() = %q, want %q", c.URL(), want)
	}
	if !regexp.MustCompile(`^\d+\.\d+`).MatchString(c.Version()) {
		t.Errorf("Version() = %q, want like 15.18", c.Version())
	}
	// Debian layout: /usr/lib/postgresql/15/bin must give 15.x.
	if major := filepath.Base(filepath.Dir(bin)); regexp.MustCompile(`^\d+$`).MatchString(major) &&
		!strings.HasPrefix(c.Version(), major+".") {
		t.Errorf("Version() = %q, want %s.x (from %s)", c.Version(), major, bin)
	}
	// The Unix socket lives in the cluster directory, unless that path is
	// too long for a socket (then the server is TCP-only).
	if sock := filepath.Join(c.Dir(), ".s.PGSQL."+strconv.Itoa(c.Port())); len(sock) <= maxSocketPath {
		if _, err := os.Stat(sock); err != nil {
			t.Errorf("no Unix socket in the cluster directory: %v", err)
		}
	}
	if os.Geteuid() == 0 {
		fi, err := os.Stat(filepath.Join(c.Dir(), "data"))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid == 0 {
			t.Errorf("running as root, but the data directory belongs to root")
		}
	}

	assertStops(t, c)
}

// assertStops stops p and checks what Stop promises: its directory
// removed, its process dead, no PID, a second Stop harmless and Restart
// refused.
func assertStops(t *testing.T, p interface {
	Stop() error
	Restart(context.Context) error
	PID() int
	Dir() string
}) {
	t.Helper()
	pid, dir := p.PID(), p.Dir()
	t0 := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("Stop took %v", time.Since(t0).Round(time.Millisecond))
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory %s still there after Stop (stat: %v)", dir, err)
	}
	assertDead(t, pid)
	if p.PID() != 0 {
		t.Errorf("PID() = %d after Stop, want 0", p.PID())
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if err := p.Restart(context.Background()); err == nil {
		t.Errorf("Restart after Stop succeeded, want an error")
	}
}

func TestRestart(t *testing.T) {
	needBin(t)
	c := start(t, Options{})
	port, dir, pid := c.Port(), c.Dir(), c.PID()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t0 := time.Now()
	if err := c.Restart(ctx); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	t.Logf("Restart took %v", time.Since(t0).Round(time.Millisecond))
	if c.Port() != port || c.Dir() != dir {
		t.Errorf("after Restart port %d dir %s, want port %d dir %s", c.Port(), c.Dir(), port, dir)
	}
	if c.PID() == pid {
		t.Errorf("PID() unchanged (%d) after Restart", pid)
	}
	assertDead(t, pid)
	assertReady(t, c)
}

func TestConcurrentStop(t *testing.T) {
	needBin(t)
	c := start(t, Options{})
	pid, dir := c.PID(), c.Dir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Stop()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Stop #%d: %v", i, err)
		}
	}
	assertDead(t, pid)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory %s still there after Stop", dir)
	}
}

func TestConf(t *testing.T) {
	bin := needBin(t)
	c := start(t, Options{Conf: []string{"max_connections=37"}})
	opts := postmasterOpts(t, c)
	if !strings.Contains(opts, "max_connections=37") {
		t.Errorf("postmaster.opts = %q, want max_connections=37", opts)
	}
	if want := hasPgStatStatements(bin); strings.Contains(opts, "shared_preload_libraries=pg_stat_statements") != want {
		t.Errorf("postmaster.opts = %q, want pg_stat_statements preloaded: %v", opts, want)
	}
	// The user's settings come after the defaults, so they win.
	if i, j := strings.Index(opts, "listen_addresses"), strings.Index(opts, "max_connections=37"); i < 0 || j < i {
		t.Errorf("postmaster.opts = %q, want the --pg-conf settings after the defaults", opts)
	}
}

// postmasterOpts is the command line the cluster's server was started with.
func postmasterOpts(t *testing.T, c *Cluster) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir(), "data", "postmaster.opts"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBadConf(t *testing.T) {
	needBin(t)
	leftNone := noneLeft(t, ourDirs)
	for _, conf := range []string{"nonsense", "=1", " =x"} {
		_, err := Start(context.Background(), Options{Conf: []string{"shared_buffers=16MB", conf}})
		errSays(t, fmt.Sprintf("Start with --pg-conf %q", conf), err, "key=value", "--pg-conf")
	}
	// A setting the server rejects: it exits during startup.
	t0 := time.Now()
	_, err := Start(context.Background(), Options{Conf: []string{"no_such_setting=1"}})
	t.Logf("failed Start took %v", time.Since(t0).Round(time.Millisecond))
	firstLineSays(t, "Start with an unknown setting", err, `unrecognized configuration parameter "no_such_setting"`, "--pg-conf")
	errSays(t, "Start with an unknown setting", err, "server log")
	leftNone()
}

// nonExecutables is a directory holding names, each a script that may
// not be run.
func nonExecutables(t *testing.T, names ...string) string {
	dir := t.TempDir()
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindBinDir(t *testing.T) {
	_, err := FindBinDir("/nonexistent/txnbench/bin")
	errSays(t, "FindBinDir(bogus)", err, "--pg-bin")
	// A directory with a non-executable initdb is not enough.
	_, err = FindBinDir(nonExecutables(t, "initdb", "postgres"))
	errSays(t, "FindBinDir(non-executable)", err, "--pg-bin")

	bin := needBin(t)
	if got, err := FindBinDir(bin); err != nil || got != bin {
		t.Errorf("FindBinDir(%q) = %q, %v; want it back", bin, got, err)
	}
}

func TestParseVersionParts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"15", []int{15}, true},
		{"9.6", []int{9, 6}, true},
		{"16beta", nil, false},
		{"", nil, false},
	} {
		got, ok := parseVersionParts(tc.in)
		if ok != tc.ok || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("parseVersionParts(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if !versionLess([]int{9, 6}, []int{10}) || versionLess([]int{15}, []int{9, 6}) {
		t.Error("versionLess orders 9.6 and 10 wrongly")
	}
}

func TestCleanStale(t *testing.T) {
	mk := func(marker string) string {
		t.Helper()
		dir, err := os.MkdirTemp(os.TempDir(), dirPrefix+"*")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		if err := os.WriteFile(filepath.Join(dir, tempdir.MarkerName), []byte(marker), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dead := mk("999999999 0\n")
	// Our pid, but another start time: the pid was reused, the owner is gone.
	reused := mk(fmt.Sprintf("%d %d\n", os.Getpid(), tempdir.StartTime(os.Getpid())+12345))
	live := mk(fmt.Sprintf("%d %d\n", os.Getpid(), tempdir.StartTime(os.Getpid())))
	liveNoStart := mk(fmt.Sprintf("%d\n", os.Getpid()))

	CleanStale() // concurrent txnbench processes may clean too: assert outcomes
	for _, d := range []string{dead, reused} {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s not removed", d)
		}
	}
	for _, d := range []string{live, liveNoStart} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("live %s removed: %v", d, err)
		}
	}
}

// TestOptionsLog checks that Options.Log receives the server's output and
// that Start+Stop leave no directory behind.
func TestOptionsLog(t *testing.T) {
	needBin(t)
	leftNone := noneLeft(t, ourDirs)
	var log plain.Buffer
	c := start(t, Options{Log: &log})
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	plain.Contains(t, "Options.Log", log.String(), "ready to accept connections")
	leftNone()
	if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there after Stop", c.Dir())
	}
}

const helperEnv = "TXNBENCH_LOCALDB_HELPER"

// TestHelperOwner is not a test: killOwner runs the test binary with it to
// play a txnbench that starts a cluster ($TXNBENCH_LOCALDB_HELPER=cluster),
// a PgBouncer (=pgbouncer) or an HAProxy (=haproxy) and is then SIGKILLed.
func TestHelperOwner(t *testing.T) {
	var p interface {
		Dir() string
		PID() int
	}
	var err error
	switch os.Getenv(helperEnv) {
	case "cluster":
		p, err = Start(context.Background(), Options{})
	case "pgbouncer":
		// No server is needed: PgBouncer connects when a client arrives.
		p, err = StartPgBouncer(context.Background(), BouncerOptions{BackendPort: 1, BackendUser: "postgres"})
	case "haproxy":
		p, err = StartHAProxy(context.Background(), HAProxyOptions{Servers: []int{1}})
	default:
		t.Skip("helper process for TestKilledOwner and TestKilledBouncerOwner")
	}
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println(p.Dir(), p.PID())
	select {}
}

// TestKilledOwner SIGKILLs a process that started a cluster and checks that
// the server goes away on its own (Pdeathsig) and CleanStale removes the
// directory.
func TestKilledOwner(t *testing.T) {
	needBin(t)
	killOwner(t, "cluster", "postmaster")
}

// killOwner runs TestHelperOwner starting kind (cluster or pgbouncer),
// SIGKILLs it once it has started its process (named proc in messages),
// and checks that the process goes away on its own and that CleanStale
// removes its directory.
func killOwner(t *testing.T, kind, proc string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOwner$", "-test.v=false")
	cmd.Env = append(os.Environ(), helperEnv+"="+kind)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading from the helper: %v", err)
	}
	var dir string
	var pid int
	if _, err := fmt.Sscan(line, &dir, &pid); err != nil {
		t.Fatalf("helper said %q", line)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })

	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for tempdir.Alive(pid, 0) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if tempdir.Alive(pid, 0) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("%s %d still alive 10 s after its owner was killed", proc, pid)
	}
	// The directory is left behind until a CleanStale removes it: ours, or
	// one of a txnbench running concurrently (other test packages do), so
	// the count is not asserted, only the outcome.
	CleanStale()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("CleanStale left %s", dir)
	}
}

// TestCleanStaleKillsServer plays a txnbench that died while its server
// survived: CleanStale must kill the server before removing its directory.
func TestCleanStaleKillsServer(t *testing.T) {
	needBin(t)
	c := start(t, Options{})
	assertStaleKilled(t, c.PID(), c.Dir(), c.Stop)
}

// assertStaleKilled marks dir, where process pid runs, as owned by a dead
// txnbench: CleanStale removes dir and kills pid, and stop succeeds after.
func assertStaleKilled(t *testing.T, pid int, dir string, stop func() error) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, tempdir.MarkerName), []byte("999999999 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	CleanStale() // a concurrent txnbench may get there first: assert the outcome
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("CleanStale left %s", dir)
	}
	if err := stop(); err != nil {
		t.Errorf("Stop after CleanStale: %v", err)
	}
	assertDead(t, pid)
}

func TestPortInUse(t *testing.T) {
	needBin(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port
	leftNone := noneLeft(t, ourDirs)

	// A fixed port that is taken: a clear error, nothing left behind.
	_, err = Start(context.Background(), Options{Port: busy})
	firstLineSays(t, "Start on a busy port", err, "already in use")
	leftNone()

	// A picked port that someone takes first: Start picks another.
	calls := pickBusyFirst(t, busy)
	c := start(t, Options{})
	if c.Port() == busy || *calls != 2 {
		t.Errorf("port %d after %d picks, want a second pick other than the busy %d", c.Port(), *calls, busy)
	}
	assertReady(t, c)
}

// ownTMPDIR points TMPDIR at a new directory of the test's own (0755, so
// the unprivileged user the servers run as can enter it), removed at the
// end: cluster directories made there, and processes naming them, are
// the test's and no one else's.
func ownTMPDIR(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "txnbench-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", dir)
	return dir
}

// orphans lists live processes whose command line names a cluster directory
// in os.TempDir() that no longer exists.
func orphans() []string {
	ents, _ := os.ReadDir("/proc")
	var found []string
	re := regexp.MustCompile(regexp.QuoteMeta(filepath.Join(os.TempDir(), dirPrefix)) + `[0-9]+`)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !tempdir.Alive(pid, 0) {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if dir := re.Find(cmdline); dir != nil {
			if _, err := os.Stat(string(dir)); errors.Is(err, os.ErrNotExist) {
				found = append(found, fmt.Sprintf("%d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
			}
		}
	}
	return found
}

// TestCancelledStart cancels Start at various points (during initdb, during
// server startup) and checks nothing is left: no directory, no process.
// Its clusters live in a TMPDIR of its own, so the processes it looks for
// are its own, never another run's.
func TestCancelledStart(t *testing.T) {
	needBin(t)
	ownTMPDIR(t)
	leftNone := noneLeft(t, ourDirs)
	for _, d := range []time.Duration{0, 50 * time.Millisecond, 200 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		c, err := Start(ctx, Options{})
		cancel()
		if err == nil {
			t.Logf("timeout %v: Start finished first", d)
			if err := c.Stop(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Logf("timeout %v: %v", d, err)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("timeout %v: error %v does not wrap context.DeadlineExceeded", d, err)
		}
	}
	// Cancel while the server starts up: on its first line of output.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Start(ctx, Options{Log: writerFunc(func(p []byte) (int, error) { cancel(); return len(p), nil })})
	t.Logf("cancelled on server output: %v", err)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Start cancelled during server startup: err = %v, want it wrapping context.Canceled", err)
	}
	errSays(t, "Start cancelled during server startup", err, "startup interrupted")
	leftNone()
	var left []string
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left = orphans(); len(left) == 0 {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("processes left behind: %q", left)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestWithPreload(t *testing.T) {
	for _, tc := range []struct {
		conf []string
		want []string
	}{
		{nil, []string{"shared_preload_libraries=pg_stat_statements"}},
		{[]string{"work_mem=8MB"}, []string{"shared_preload_libraries=pg_stat_statements", "work_mem=8MB"}},
		{[]string{"shared_preload_libraries=auto_explain"}, []string{"shared_preload_libraries=pg_stat_statements,auto_explain"}},
		{[]string{"shared_preload_libraries='auto_explain, pg_prewarm'"}, []string{"shared_preload_libraries=pg_stat_statements,auto_explain,pg_prewarm"}},
		{[]string{"shared_preload_libraries=auto_explain,pg_stat_statements"}, []string{"shared_preload_libraries=auto_explain,pg_stat_statements"}},
		{[]string{"shared_preload_libraries=", "x=1"}, []string{"shared_preload_libraries=pg_stat_statements", "x=1"}},
		{[]string{"shared_preload_libraries=a", "shared_preload_libraries=b"}, []string{"shared_preload_libraries=a", "shared_preload_libraries=pg_stat_statements,b"}},
	} {
		got := withPreload(tc.conf, "pg_stat_statements")
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("withPreload(%q) = %q, want %q", tc.conf, got, tc.want)
		}
	}
}

// TestPreloadMerged: a user's shared_preload_libraries keeps
// pg_stat_statements, which telemetry needs.
func TestPreloadMerged(t *testing.T) {
	bin := needBin(t)
	if !hasPgStatStatements(bin) {
		t.Skip("pg_stat_statements is not installed with this server")
	}
	c := start(t, Options{Conf: []string{"shared_preload_libraries=auto_explain"}})
	opts := postmasterOpts(t, c)
	if !strings.Contains(opts, "shared_preload_libraries=pg_stat_statements,auto_explain") {
		t.Errorf("postmaster.opts = %q, want both libraries preloaded", opts)
	}
}

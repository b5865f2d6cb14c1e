package localdb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/tempdir"
)

// needHAProxy skips the test when haproxy is missing, unless CI is set.
func needHAProxy(t *testing.T) {
	t.Helper()
	_, err := FindHAProxy("")
	need(t, err)
}

func startFleet(t *testing.T, c *Cluster, n int) *Fleet {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := StartFleet(ctx, FleetOptions{Size: n, Bouncer: BouncerOptions{
		BackendPort: c.Port(), BackendUser: "postgres", BackendPassword: c.Password(), MaxClientConn: 20,
	}})
	if err != nil {
		t.Fatalf("StartFleet: %v", err)
	}
	t.Cleanup(func() { _ = f.Stop() })
	return f
}

// waitFor polls cond until it holds or 20 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFleet starts two PgBouncers behind HAProxy: queries go through the
// one address, HAProxy's statistics name both members, a member that dies
// unasked is restarted on its port and reported, one killed on purpose
// stays down while HAProxy sends connections to the other, and Stop
// removes every directory.
func TestFleet(t *testing.T) {
	needBin(t)
	needPgBouncer(t)
	needHAProxy(t)
	psqlBin := needPsql(t)
	c := start(t, Options{})
	f := startFleet(t, c, 2)
	if len(f.Members()) != 2 || f.Proxy() == nil || f.Port() != f.Proxy().Port() {
		t.Fatalf("fleet: %d members, proxy %v", len(f.Members()), f.Proxy())
	}
	serves := func() bool {
		if psqlBin == "" {
			assertDialable(t, f.Port())
			return true
		}
		out, err := psql(t, psqlBin, f.URL("postgres"), "SELECT 1")
		if err != nil || out != "1" {
			t.Logf("SELECT 1 through HAProxy = %q, %v", out, err)
			return false
		}
		return true
	}
	if !serves() {
		t.Fatal("the fleet does not serve")
	}
	rows, err := f.Proxy().Stats(context.Background())
	if err != nil || len(rows) != 2 || rows[0]["svname"] != "pooler1" || rows[1]["svname"] != "pooler2" {
		t.Fatalf("Stats = %v, %v; want pooler1 and pooler2", rows, err)
	}

	m := f.Members()[0]
	oldPID, port := m.PID(), m.Port()
	e, events := crash(t, m, 30*time.Second)
	if e.Name != "PgBouncer" || !strings.Contains(e.Exit, "killed") {
		t.Errorf("event %+v", e)
	}
	if m.PID() == 0 || m.PID() == oldPID || m.Port() != port {
		t.Errorf("after the restart: pid %d (was %d), port %d (was %d)", m.PID(), oldPID, m.Port(), port)
	}
	assertDialable(t, port)

	// Killed on purpose: not restarted, not reported; HAProxy retries
	// connections refused by it on the other member.
	if err := m.Kill(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if !serves() {
			t.Error("a connection failed with one of two members down")
		}
	}
	select {
	case e := <-events:
		t.Errorf("a deliberate kill was reported: %+v", e)
	default:
	}
	if m.PID() != 0 {
		t.Errorf("a killed member runs again: pid %d", m.PID())
	}
	if err := m.Restart(context.Background()); err != nil || m.Port() != port {
		t.Fatalf("Restart after Kill: %v, port %d (was %d)", err, m.Port(), port)
	}

	dirs := []string{f.Proxy().Dir(), f.Members()[0].Dir(), f.Members()[1].Dir()}
	if err := f.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Stop left %s", d)
		}
	}
}

// TestCleanStaleKillsHAProxy plays a txnbench that died while its HAProxy
// survived: CleanStale kills it (its pid file names it) and removes its
// directory.
func TestCleanStaleKillsHAProxy(t *testing.T) {
	needHAProxy(t)
	h, err := StartHAProxy(context.Background(), HAProxyOptions{Servers: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	pid, dir := h.PID(), h.Dir()
	if err := os.WriteFile(filepath.Join(dir, tempdir.MarkerName), []byte("999999999 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	CleanStale()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("CleanStale left %s", dir)
	}
	waitFor(t, "haproxy to exit", func() bool { return !tempdir.Alive(pid, 0) })
}

func TestParseStat(t *testing.T) {
	in := "# pxname,svname,qcur,stot,status,chkfail,chkdown,\n" +
		"clients,FRONTEND,,12,OPEN,,,\n" +
		"poolers,pooler1,0,7,UP,0,0,\n" +
		"poolers,pooler2,0,5,DOWN,3,1,\n" +
		"poolers,BACKEND,0,12,UP,,1,\n\n"
	rows, err := parseStat(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0]["svname"] != "pooler1" || rows[1]["status"] != "DOWN" || rows[1]["chkfail"] != "3" || rows[0]["stot"] != "7" {
		t.Errorf("rows = %v", rows)
	}
}

// TestSupervisedCluster: a cluster that dies unasked is started again and
// reported; one killed on purpose (Kill) stays down, unreported, until
// Restart, which recovers it on its port.
// crash SIGKILLs p's process, supervised, and returns the event that
// reports it (within d, naming its pid, with no error of its own) and
// the channel later events come on.
func crash(t *testing.T, p interface {
	Supervise(func(Event))
	PID() int
}, d time.Duration) (Event, <-chan Event) {
	t.Helper()
	events := make(chan Event, 4)
	p.Supervise(func(e Event) { events <- e })
	pid := p.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-events:
		if e.Err != nil || e.PID != pid {
			t.Errorf("event %+v, want pid %d's and no error", e, pid)
		}
		return e, events
	case <-time.After(d):
		t.Fatalf("no event %v after pid %d was killed", d, pid)
	}
	return Event{}, events
}

func TestSupervisedCluster(t *testing.T) {
	needBin(t)
	c := start(t, Options{})
	port := c.Port()
	e, events := crash(t, c, 60*time.Second)
	if e.Name != "PostgreSQL" {
		t.Errorf("event %+v", e)
	}
	assertReady(t, c)
	if err := c.Kill(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if c.PID() != 0 {
		t.Errorf("a killed cluster runs: pid %d", c.PID())
	}
	if err := c.Restart(context.Background()); err != nil || c.Port() != port {
		t.Fatalf("Restart after Kill: %v (port %d, was %d)", err, c.Port(), port)
	}
	assertReady(t, c)
	select {
	case e := <-events:
		t.Errorf("a deliberate kill was reported: %+v", e)
	default:
	}
}

// TestKilledHAProxyOwner SIGKILLs a process that started an HAProxy and
// checks that haproxy goes away on its own (Pdeathsig) and CleanStale
// removes the directory.
func TestKilledHAProxyOwner(t *testing.T) {
	needHAProxy(t)
	killOwner(t, "haproxy", "haproxy")
}

// TestFleetTakesAFrozenMemberOut: HAProxy's health check asks each
// PgBouncer for a protocol answer, so a member that stops answering
// (SIGSTOP: its kernel still accepts TCP connections) is marked DOWN
// within a few seconds, while live members stay UP. A TCP connect check
// kept the frozen one UP for as long as it was stopped.
func TestFleetTakesAFrozenMemberOut(t *testing.T) {
	needBin(t)
	needPgBouncer(t)
	needHAProxy(t)
	c := start(t, Options{})
	f := startFleet(t, c, 2)
	status := func(i int) string {
		rows, err := f.Proxy().Stats(context.Background())
		if err != nil || len(rows) != 2 {
			t.Fatalf("Stats = %v, %v", rows, err)
		}
		return rows[i]["status"]
	}
	// Both pass the protocol check: a check that every live member fails
	// would take the whole fleet out.
	waitFor(t, "both members UP", func() bool { return status(0) == "UP" && status(1) == "UP" })
	rows, _ := f.Proxy().Stats(context.Background())
	for _, r := range rows {
		if r["chkfail"] != "0" {
			t.Errorf("%s failed %s checks while it answered", r["svname"], r["chkfail"])
		}
	}
	pid := f.Members()[0].PID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	frozen := time.Now()
	waitFor(t, "the frozen member DOWN", func() bool { return strings.HasPrefix(status(0), "DOWN") })
	t.Logf("the frozen member was DOWN %.1f s after SIGSTOP", time.Since(frozen).Seconds())
	if s := status(1); s != "UP" {
		t.Errorf("the live member is %s", s)
	}
}

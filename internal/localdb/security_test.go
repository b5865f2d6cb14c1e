package localdb

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needRoot skips the test unless it runs as root, which it needs to act
// as user nobody; CI runs as root, and there not being root fails it.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run this test as root: it acts as user nobody")
		}
		t.Skip("not root: cannot act as user nobody")
	}
}

// TestOtherLocalUserLockedOut: another local user (nobody) can neither
// connect to a throwaway server nor through a throwaway PgBouncer (its admin
// console included) without the password, nor read a file holding one.
// It needs root, to act as nobody; CI runs as root.
func TestOtherLocalUserLockedOut(t *testing.T) {
	needRoot(t)
	needBin(t)
	needPgBouncer(t)
	psqlBin := needPsql(t)
	runuser, err := exec.LookPath("runuser")
	if psqlBin == "" || err != nil {
		t.Fatalf("psql and runuser are needed: %v", err)
	}
	c := start(t, Options{})
	if c.user == nil || c.user.name == "nobody" {
		t.Skipf("the server runs as %v: nobody is not a second user", c.user)
	}
	b := startBouncer(t, BouncerOptions{BackendPort: c.Port(), BackendUser: "postgres", BackendPassword: c.Password()})

	asNobody := func(args ...string) (string, error) { return runAsNobody(runuser, args...) }
	query := func(conninfo, sql string) (string, error) {
		return asNobody(psqlBin, "-X", "-w", "-Atc", sql, conninfo)
	}

	server := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres", c.Port())
	pooler := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres", b.Port())
	// With the password nobody gets in: psql works for nobody and the
	// ports are reachable, so the refusals below are authentication.
	if out, err := query(server+" dbname=postgres password="+c.Password(), "SELECT 1"); err != nil || out != "1" {
		t.Fatalf("as nobody with the server password: %q, %v", out, err)
	}
	if out, err := query(pooler+" dbname=postgres password="+b.password, "SELECT 1"); err != nil || out != "1" {
		t.Fatalf("as nobody with the PgBouncer password: %q, %v", out, err)
	}
	for _, tc := range []struct{ name, conninfo, sql string }{
		{"server over TCP", server + " dbname=postgres", "COPY (SELECT 1) TO PROGRAM 'id'"},
		{"server over TCP, wrong password", server + " dbname=postgres password=wrong", "SELECT 1"},
		{"server over its Unix socket", fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres", c.Dir(), c.Port()), "SELECT 1"},
		{"PgBouncer", pooler + " dbname=postgres", "SELECT 1"},
		{"PgBouncer, wrong password", pooler + " dbname=postgres password=wrong", "SELECT 1"},
		{"PgBouncer, the server's password", pooler + " dbname=postgres password=" + c.Password(), "SELECT 1"},
		{"PgBouncer admin console", pooler + " dbname=pgbouncer", "SHOW USERS"},
		{"PgBouncer admin console, wrong password", pooler + " dbname=pgbouncer password=wrong", "SHOW USERS"},
		{"PgBouncer over its Unix socket", fmt.Sprintf("host=%s port=%d user=postgres dbname=pgbouncer", b.Dir(), b.Port()), "SHOW USERS"},
	} {
		if out, err := query(tc.conninfo, tc.sql); err == nil {
			t.Errorf("%s: nobody got in: %q", tc.name, out)
		} else {
			t.Logf("%s: refused: %s", tc.name, out)
		}
	}

	// Files: the directories are closed to others, and every file holding
	// a password is the server user's alone.
	if _, err := os.Stat(filepath.Join(c.Dir(), "initdb.pw")); !os.IsNotExist(err) {
		t.Errorf("initdb's password file is still there: %v", err)
	}
	secrets := []string{c.Password(), b.password}
	for _, dir := range []string{c.Dir(), b.Dir()} {
		if out, err := asNobody("ls", dir); err == nil {
			t.Errorf("nobody can list %s: %s", dir, out)
		}
		held := 0
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			content, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, s := range secrets {
				if !strings.Contains(string(content), s) {
					continue
				}
				held++
				if fi, err := d.Info(); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("%s holds a password and is not 0600: %v", path, fi.Mode())
				}
				if out, err := asNobody("cat", path); err == nil {
					t.Errorf("nobody can read %s: %q", path, out)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if dir == b.Dir() && held < 2 {
			t.Errorf("PgBouncer's directory holds %d password files, want its auth file and configuration", held)
		}
	}
}

// runAsNobody runs a command as user nobody (with runuser) and returns its
// output.
func runAsNobody(runuser string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, runuser, append([]string{"-u", "nobody", "--"}, args...)...)
	cmd.Dir = "/"
	cmd.Env = append(childEnv(), "HOME=/nonexistent", "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestOtherLocalUserLockedOutOfReplicas: nobody gets into no member of a
// replica set, on a normal or a replication connection, over TCP or a
// Unix socket, before a failover and after it (the fenced primary's port
// free), and cannot read a standby's directory, which holds the
// password it logs in to the primary with.
func TestOtherLocalUserLockedOutOfReplicas(t *testing.T) {
	needRoot(t)
	psqlBin := needPsql(t)
	runuser, err := exec.LookPath("runuser")
	if psqlBin == "" || err != nil {
		t.Fatalf("psql and runuser are needed: %v", err)
	}
	rs := startReplicated(t, 1, Async)
	if u := rs.Primary().user; u == nil || u.name == "nobody" {
		t.Skipf("the servers run as %v: nobody is not a second user", u)
	}
	tryAll := func(when string) {
		for _, n := range rs.Nodes() {
			if n.PID() == 0 {
				continue
			}
			for _, conninfo := range []string{
				fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres", n.Port()),
				fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres replication=database", n.Port()),
				fmt.Sprintf("host=127.0.0.1 port=%d user=postgres password=wrong replication=true", n.Port()),
				fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres replication=database", n.Dir(), n.Port()),
			} {
				if out, err := runAsNobody(runuser, psqlBin, "-X", "-w", "-Atc", "IDENTIFY_SYSTEM", conninfo); err == nil {
					t.Errorf("%s, %s: nobody got in with %q: %q", when, n.Name, conninfo, out)
				}
			}
			if out, err := runAsNobody(runuser, "ls", n.Dir()); err == nil {
				t.Errorf("%s: nobody can list %s's directory: %s", when, n.Name, out)
			}
		}
	}
	// with the password nobody gets in: the refusals are authentication
	standby := rs.Nodes()[1]
	ok := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres password=%s replication=true", standby.Port(), standby.Password())
	if out, err := runAsNobody(runuser, psqlBin, "-X", "-w", "-Atc", "IDENTIFY_SYSTEM", ok); err != nil {
		t.Fatalf("as nobody with the password, a replication connection to the standby: %q, %v", out, err)
	}
	auto := filepath.Join(standby.Dir(), "data", "postgresql.auto.conf")
	if b, err := os.ReadFile(auto); err != nil || !strings.Contains(string(b), standby.Password()) {
		t.Fatalf("%s does not hold the primary's password: %v", auto, err)
	}
	if fi, err := os.Stat(auto); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s is not 0600: %v", auto, err)
	}
	tryAll("before the failover")
	failOver(t, rs)
	tryAll("after the failover")
}

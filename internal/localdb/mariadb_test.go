package localdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/tempdir"
)

// needMariaDB skips the test when MariaDB's server is not installed,
// unless CI is set, where that is a failure.
func needMariaDB(t *testing.T) {
	t.Helper()
	_, _, err := findMariaDB()
	need(t, err)
}

// TestMariaDB starts one throwaway MariaDB and checks, in turn: it
// answers with its password and has performance_schema on; over TCP it
// speaks TLS only, with a certificate of the run's CA, and its load user
// has the run database and nothing more (no FILE); another
// local user (nobody) gets nothing without the password, over TCP or the
// socket; its files are its user's alone and none holds the password;
// --mariadb-conf settings reach it, also under a $TMPDIR only root may
// write; it restarts on its port; and a
// server whose txnbench died is killed and its directory removed by
// CleanStale.
func TestMariaDB(t *testing.T) {
	needMariaDB(t)
	_, err := StartMariaDB(context.Background(), MariaDBOptions{Conf: []string{"bad"}})
	errSays(t, "a bad --mariadb-conf", err, `--mariadb-conf "bad": want key=value`)
	if os.Geteuid() == 0 {
		// Under a $TMPDIR the server's user may not write (root's, 0755),
		// where temp-postgres runs: the bootstrap's temporary files go to
		// the server's own directory (before, mariadb-install-db failed).
		tmp, err := os.MkdirTemp("", "txnbench-rootonly-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(tmp) })
		if err := os.Chmod(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", tmp)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := StartMariaDB(ctx, MariaDBOptions{Conf: []string{"max_connections=77"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop() })
	if p := d.Port(); p < portMin || p > portMax {
		t.Errorf("port %d is outside %d-%d", p, portMin, portMax)
	}
	client, err := exec.LookPath("mariadb")
	if err != nil {
		t.Fatalf("the mariadb client is needed: %v", err)
	}
	// runAs runs the mariadb client as user ("" for ourselves), with
	// password pw ("" for none).
	runAs := func(user, pw string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		argv := append([]string{client, "--no-defaults", "-N", "-B"}, args...)
		if user != "" {
			argv = append([]string{"runuser", "-u", user, "--"}, argv...)
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = "/"
		cmd.Env = append(childEnv(), "HOME=/nonexistent")
		if pw != "" {
			cmd.Env = append(cmd.Env, "MYSQL_PWD="+pw)
		}
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	run := func(asNobody bool, pw string, args ...string) (string, error) {
		if asNobody {
			return runAs("nobody", pw, args...)
		}
		return runAs("", pw, args...)
	}
	// Over TCP the server speaks TLS only: tcp verifies it against the
	// run's CA, plainTCP is TCP without TLS.
	plainTCP := []string{"-h", "127.0.0.1", "-P", strconv.Itoa(d.Port())}
	tcp := append([]string{"--ssl", "--ssl-verify-server-cert", "--ssl-ca=" + d.CAFile()}, plainTCP...)
	query := func(t *testing.T, sql string) string {
		t.Helper()
		out, err := run(false, d.Password(), append(tcp, "-u", MariaDBUser, MariaDBDatabase, "-e", sql)...)
		if err != nil {
			t.Fatalf("%s: %s: %v", sql, out, err)
		}
		return out
	}

	t.Run("ready", func(t *testing.T) {
		if got := query(t, "SELECT @@performance_schema, @@max_connections, @@bind_address"); got != "1\t77\t127.0.0.1" {
			t.Errorf("performance_schema, max_connections, bind_address = %q, want 1, 77 (--mariadb-conf), 127.0.0.1", got)
		}
		// Temporary files in its own 0700 directory, not the shared /tmp.
		tmp := filepath.Join(d.Dir(), "tmp")
		if got := query(t, "SELECT @@tmpdir"); got != tmp {
			t.Errorf("tmpdir = %q, want %q", got, tmp)
		}
		if fi, err := os.Stat(tmp); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want mode 0700", tmp, fi, err)
		}
		if v := query(t, "SELECT version()"); !strings.HasPrefix(v, d.Version()+"-MariaDB") {
			t.Errorf("version() = %q, Version() = %q", v, d.Version())
		}
		if got := query(t, "SELECT GROUP_CONCAT(CONCAT(user, '@', host, ':', plugin) ORDER BY user, host) FROM mysql.user"); got != "mariadb.sys@localhost:mysql_native_password,root@127.0.0.1:mysql_native_password,root@localhost:mysql_native_password,txnbench_load@127.0.0.1:mysql_native_password" {
			t.Errorf("accounts: %s", got)
		}
	})

	t.Run("TLS only, a load user with the run database alone", func(t *testing.T) {
		if got := query(t, "SELECT @@require_secure_transport, @@have_ssl"); got != "1\tYES" {
			t.Errorf("require_secure_transport, have_ssl = %q, want 1, YES", got)
		}
		// Without TLS the right password gets nothing over TCP.
		if out, err := run(false, d.Password(), append(plainTCP, "--skip-ssl", "-u", MariaDBUser, "-e", "SELECT 1")...); err == nil {
			t.Errorf("root logged in over TCP without TLS: %q", out)
		}
		u, _ := url.Parse(d.LoadURL())
		pw, _ := u.User.Password()
		if u.User.Username() != MariaDBLoadUser || pw == "" || pw == d.Password() || u.Query().Get("tls-ca") != d.CAFile() {
			t.Fatalf("LoadURL %s: want %s with a password of its own, verified against %s", u.Redacted(), MariaDBLoadUser, d.CAFile())
		}
		load := func(sql string) (string, error) {
			return run(false, pw, append(tcp, "-u", MariaDBLoadUser, MariaDBDatabase, "-e", sql)...)
		}
		if out, err := load("CREATE TABLE loadable (id int primary key); DROP TABLE loadable; SELECT 1"); err != nil || out != "1" {
			t.Errorf("the load user in the run database: %q, %v", out, err)
		}
		grants, err := load("SHOW GRANTS")
		if want := "GRANT USAGE ON *.* TO `txnbench_load`@`127.0.0.1` IDENTIFIED BY PASSWORD"; err != nil || !strings.HasPrefix(grants, want) ||
			!strings.HasSuffix(grants, "\nGRANT ALL PRIVILEGES ON `txnbench`.* TO `txnbench_load`@`127.0.0.1`") || strings.Count(grants, "\n") != 1 {
			t.Errorf("the load user's grants: %q, %v; want USAGE on *.* and ALL on txnbench.* alone", grants, err)
		}
		for _, sql := range []string{"SELECT load_file('/etc/hostname') IS NULL", "CREATE DATABASE other", "SELECT COUNT(*) FROM mysql.user"} {
			if out, err := load(sql); err == nil && out != "1" {
				t.Errorf("the load user: %s: %q", sql, out)
			}
		}
	})

	t.Run("nobody gets nothing", func(t *testing.T) {
		needRoot(t)
		if d.user == nil || d.user.name == "nobody" {
			t.Skipf("the server runs as %v: nobody is not a second user", d.user)
		}
		// With the password nobody gets in over TCP (TLS, which it
		// cannot verify: it may not read the CA's file): the refusals
		// below are the server's.
		nobodyTCP := append([]string{"--ssl"}, plainTCP...)
		if out, err := run(true, d.Password(), append(nobodyTCP, "-u", MariaDBUser, "-e", "SELECT 1")...); err != nil || out != "1" {
			t.Fatalf("as nobody with the password: %q, %v", out, err)
		}
		for _, tc := range []struct {
			name string
			pw   string
			args []string
		}{
			{"TCP without TLS, with the password", d.Password(), append(plainTCP, "--skip-ssl", "-u", MariaDBUser, "-e", "SELECT 1")},
			{"TCP as nobody", "", append(nobodyTCP, "-e", "SELECT 1")},
			{"TCP as root", "", append(nobodyTCP, "-u", "root", "-e", "SELECT 1")},
			{"TCP as root, wrong password", "wrong", append(nobodyTCP, "-u", "root", "-e", "SELECT 1")},
			{"TCP as the anonymous user", "", append(nobodyTCP, "-u", "", "-e", "SELECT 1")},
			{"TCP as mariadb.sys", "", append(nobodyTCP, "-u", "mariadb.sys", "-e", "SELECT 1")},
			{"socket as nobody (unix_socket)", "", []string{"-S", d.SocketPath(), "-e", "SELECT 1"}},
			{"socket as root", "", []string{"-S", d.SocketPath(), "-u", "root", "-e", "SELECT 1"}},
			{"socket as the server's user", "", []string{"-S", d.SocketPath(), "-u", d.user.name, "-e", "SELECT 1"}},
		} {
			if out, err := run(true, tc.pw, tc.args...); err == nil {
				t.Errorf("%s: nobody got in: %q", tc.name, out)
			} else {
				t.Logf("%s: refused: %s", tc.name, out)
			}
		}
		if out, err := run(true, "", "--ssl", "-h", "::1", "-P", strconv.Itoa(d.Port()), "-e", "SELECT 1"); err == nil {
			t.Errorf("the server answers on ::1: %q", out)
		}
		// The server's own user reaches the socket: no unix_socket
		// account lets it in either.
		for _, u := range []string{"", "root", d.user.name} {
			if out, err := runAs(d.user.name, "", "-S", d.SocketPath(), "-u", u, "-e", "SELECT 1"); err == nil {
				t.Errorf("socket as %q from the server's user: got in: %q", u, out)
			} else {
				t.Logf("socket as %q from the server's user: refused: %s", u, out)
			}
		}
		if out, err := exec.Command("runuser", "-u", "nobody", "--", "ls", d.Dir()).CombinedOutput(); err == nil {
			t.Errorf("nobody can list %s: %s", d.Dir(), out)
		}
	})

	t.Run("files", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(d.Dir(), mariaInitName)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the init file with the password is still there: %v", err)
		}
		query(t, "CREATE TABLE t (id int primary key) ENGINE=InnoDB")
		err := filepath.WalkDir(d.Dir(), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := e.Info()
			if err != nil {
				return err
			}
			switch {
			case e.IsDir() && fi.Mode().Perm()&0o077 != 0:
				t.Errorf("directory %s is %v, want 0700", path, fi.Mode().Perm())
			case e.Type().IsRegular():
				if fi.Mode().Perm()&0o037 != 0 && e.Name() != tempdir.MarkerName {
					t.Errorf("file %s is %v, want no more than 0640", path, fi.Mode().Perm())
				}
				if b, err := os.ReadFile(path); err == nil && (strings.Contains(string(b), d.Password()) || strings.Contains(string(b), d.loadPass)) {
					t.Errorf("%s holds the password", path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var data []string
		filepath.WalkDir(filepath.Join(d.Dir(), "data"), func(path string, e fs.DirEntry, err error) error {
			if fi, ierr := os.Stat(path); err == nil && ierr == nil && e.Type().IsRegular() && fi.Mode().Perm() != 0o600 {
				data = append(data, fmt.Sprintf("%s %v", path, fi.Mode().Perm()))
			}
			return nil
		})
		if len(data) > 0 {
			t.Errorf("data files not 0600: %v", data)
		}
	})

	t.Run("restart", func(t *testing.T) {
		port, pid := d.Port(), d.PID()
		if err := d.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		if d.Port() != port || d.PID() == pid {
			t.Errorf("after Restart: port %d pid %d, was %d %d", d.Port(), d.PID(), port, pid)
		}
		if got := query(t, "SELECT COUNT(*) FROM t"); got != "0" {
			t.Errorf("after Restart: %q", got)
		}
	})

	t.Run("stale", func(t *testing.T) {
		assertStaleKilled(t, d.PID(), d.Dir(), d.Stop)
	})
}

// TestInstallError: a failed mariadb-install-db is told by its first
// [ERROR] line, not by the advice it ends with (before: "at
// https://mariadb.org/jira").
func TestInstallError(t *testing.T) {
	out := `2026-12-01 22:51:30 0 [Note] InnoDB: Initializing buffer pool, total size = 128.000MiB, chunk size = 2.000MiB
2026-12-01 22:51:30 0 [ERROR] mariadbd: Can't create/write to file '/tmp/root-only/ibPnNT10' (Errcode: 13 "Permission denied")
2026-12-01 22:51:30 0 [ERROR] InnoDB: Unable to create temporary file; errno: 13
2026-12-01 22:51:30 0 [ERROR] Aborting

Installation of system tables failed!  Examine the logs in
/tmp/txnbench-mariadb-1/data for more information.

The problem could be conflicting information in an external
my.cnf files. You can ignore these by doing:

    shell> /usr/bin/mariadb-install-db --defaults-file=~/.my.cnf

You can also try to start the mariadbd daemon with:

    shell> /usr/sbin/mariadbd --skip-grant-tables --general-log &

and use the command line tool /usr/bin/mariadb
to connect to the mysql database and look at the grant tables:

    shell> /usr/bin/mariadb -u root mysql
    MariaDB> show tables;

Try '/usr/sbin/mariadbd --help' if you have problems with paths.  Using
--general-log gives you a log in /tmp/txnbench-mariadb-1/data that may be helpful.

The latest information about mariadb-install-db is available at
https://mariadb.com/kb/en/installing-system-tables-mysql_install_db
You can find the latest source at https://downloads.mariadb.org and
the maria-discuss email list at https://launchpad.net/~maria-discuss

Please check all of the above before submitting a bug report
at https://mariadb.org/jira
`
	want := `[ERROR] mariadbd: Can't create/write to file '/tmp/root-only/ibPnNT10' (Errcode: 13 "Permission denied")`
	if got := installError([]byte(out)); got != want {
		t.Errorf("installError = %q, want %q", got, want)
	}
}

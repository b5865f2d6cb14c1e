package localdb

import (
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
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// needPgBouncer returns the pgbouncer binary, skipping the test when it is
// missing, unless CI is set, where that is a failure.
func needPgBouncer(t *testing.T) string {
	t.Helper()
	return needFound(t, FindPgBouncer)
}

// needPsql returns the psql binary, or "" when it is missing and CI is
// unset (the caller skips its psql checks); with CI set that is a failure.
func needPsql(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("psql")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and psql is missing: install postgresql-client")
		}
		t.Log("psql not found: skipping the checks through psql")
		return ""
	}
	return path
}

// psqlOrSkip is needPsql for a test that checks only through psql: it
// skips without it.
func psqlOrSkip(t *testing.T) string {
	t.Helper()
	bin := needPsql(t)
	if bin == "" {
		t.Skip("no psql")
	}
	return bin
}

// psql runs one statement with psql against url and returns its unaligned,
// tuples-only output.
func psql(t *testing.T, bin, url, sql string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-X", libpqURL(url), "-Atc", sql)
	cmd.Env = append(childEnv(), "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("psql %q -c %q: %w: %s", url, sql, err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// libpqURL is url for libpq 15's psql, which does not know require_auth
// (libpq 16 does).
func libpqURL(url string) string { return strings.Replace(url, "&"+scramOnly, "", 1) }

// psqlTable runs sql with psql and returns its rows as maps from column
// name to value.
func psqlTable(t *testing.T, bin, url, sql string) []map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-X", libpqURL(url), "-A", "-F", "\t", "-P", "footer=off", "-c", sql)
	cmd.Env = append(childEnv(), "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q -c %q: %v: %s", url, sql, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	header := strings.Split(lines[0], "\t")
	var rows []map[string]string
	for _, l := range lines[1:] {
		row := map[string]string{}
		for i, v := range strings.Split(l, "\t") {
			if i < len(header) {
				row[header[i]] = v
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func startBouncer(t *testing.T, o BouncerOptions) *Bouncer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	t0 := time.Now()
	b, err := StartPgBouncer(ctx, o)
	if err != nil {
		t.Fatalf("StartPgBouncer: %v", err)
	}
	t.Logf("StartPgBouncer took %v (PgBouncer %s, port %d, pid %d, dir %s)", time.Since(t0).Round(time.Millisecond), b.Version(), b.Port(), b.PID(), b.Dir())
	t.Cleanup(func() { _ = b.Stop() })
	return b
}

// ourBouncerDirs lists PgBouncer directories in os.TempDir() owned by this
// process.
func ourBouncerDirs(t *testing.T) map[string]bool {
	t.Helper()
	return ownedDirs(t, bouncerDirPrefix)
}

func assertDialable(t *testing.T, port int) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 2*time.Second)
	if err != nil {
		t.Fatalf("dialing PgBouncer: %v", err)
	}
	_ = conn.Close()
}

// assertServes checks through psql that b routes a query to the server.
func assertServes(t *testing.T, psqlBin string, b *Bouncer) {
	t.Helper()
	assertDialable(t, b.Port())
	if psqlBin == "" {
		return
	}
	if out, err := psql(t, psqlBin, b.URL("postgres"), "SELECT 1"); err != nil || out != "1" {
		t.Fatalf("SELECT 1 through PgBouncer = %q, %v; want 1", out, err)
	}
}

// procOpenFiles returns the soft "Max open files" of process pid.
func procOpenFiles(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(strings.TrimPrefix(l, "Max open files")); strings.HasPrefix(l, "Max open files") && len(f) > 0 {
			n, err := strconv.ParseUint(f[0], 10, 64)
			if err != nil {
				t.Fatalf("bad limits line %q", l)
			}
			return n
		}
	}
	t.Fatalf("no Max open files in /proc/%d/limits", pid)
	return 0
}

// TestPgBouncer runs a real PgBouncer in front of one real cluster.
func TestPgBouncer(t *testing.T) {
	needPgBouncer(t)
	needBin(t)
	psqlBin := needPsql(t)
	c := start(t, Options{})
	backend := func(o BouncerOptions) BouncerOptions {
		o.BackendHost, o.BackendPort, o.BackendUser, o.BackendPassword = "127.0.0.1", c.Port(), "postgres", c.Password()
		return o
	}

	// A verifier in the auth file: PgBouncer checks logins without
	// deriving a key each, and logs in to the server with the client's
	// keys, so the server must store the same verifier.
	t.Run("Verifier", func(t *testing.T) {
		if psqlBin == "" {
			t.Skip("no psql to create the role with")
		}
		pw, verifier, err := NewLogin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := psql(t, psqlBin, c.URL(), "CREATE ROLE verifier_login LOGIN PASSWORD '"+verifier+"'"); err != nil {
			t.Fatalf("CREATE ROLE with the verifier: %v", err)
		}
		b := startBouncer(t, BouncerOptions{BackendHost: "127.0.0.1", BackendPort: c.Port(), BackendUser: "verifier_login", Password: pw, Verifier: verifier})
		auth, err := os.ReadFile(filepath.Join(b.Dir(), bouncerAuthName))
		if err != nil {
			t.Fatal(err)
		}
		if want := `"verifier_login" "` + verifier + "\"\n"; string(auth) != want || strings.Contains(string(auth), pw) {
			t.Errorf("auth file = %q, want %q (the verifier, not the password)", auth, want)
		}
		if !regexp.MustCompile(`^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$`).MatchString(verifier) {
			t.Errorf("verifier = %q, want SCRAM-SHA-256$4096:SALT$STOREDKEY:SERVERKEY", verifier)
		}
		// The client logs in with the password, and the server accepts
		// PgBouncer's login with the client's keys.
		if out, err := psql(t, psqlBin, b.URL("postgres"), "SELECT current_user"); err != nil || out != "verifier_login" {
			t.Errorf("SELECT current_user through PgBouncer = %q, %v; want verifier_login", out, err)
		}
		wrong := b.URL("postgres")
		wrong = strings.Replace(wrong, pw, strings.Repeat("0", len(pw)), 1)
		_, err = psql(t, psqlBin, wrong, "SELECT 1")
		errSays(t, "SELECT 1 with a wrong password", err, "SASL authentication failed")
		if cfg, err := os.ReadFile(filepath.Join(b.Dir(), bouncerConfName)); err != nil || strings.Contains(string(cfg), "password") {
			t.Errorf("pgbouncer.ini holds a password (%v):\n%s", err, cfg)
		}
		_, err = StartPgBouncer(context.Background(), BouncerOptions{BackendPort: c.Port(), BackendUser: "verifier_login", Password: pw, Verifier: verifier, BackendPassword: "x"})
		errSays(t, "StartPgBouncer with a verifier and a backend password", err, "not BackendPassword")
	})

	t.Run("StartStop", func(t *testing.T) {
		leftNone := noneLeft(t, ourBouncerDirs)
		b := startBouncer(t, backend(BouncerOptions{MaxClientConn: 3000}))
		if p := b.Port(); p < portMin || p > portMax {
			t.Errorf("Port() = %d, want %d-%d", p, portMin, portMax)
		}
		if want := fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/bench?sslmode=disable&require_auth=scram-sha-256", b.password, b.Port()); b.URL("bench") != want {
			t.Errorf("URL(bench) = %q, want %q", b.URL("bench"), want)
		}
		if want := fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/pgbouncer?sslmode=disable&require_auth=scram-sha-256", b.password, b.Port()); b.AdminURL() != want {
			t.Errorf("AdminURL() = %q, want %q", b.AdminURL(), want)
		}
		if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(b.Version()) {
			t.Errorf("Version() = %q, want like 1.18.0", b.Version())
		}
		if !strings.HasPrefix(b.Dir(), filepath.Join(os.TempDir(), bouncerDirPrefix)) {
			t.Errorf("Dir() = %q, want it under %s", b.Dir(), filepath.Join(os.TempDir(), bouncerDirPrefix))
		}
		if sock := filepath.Join(b.Dir(), ".s.PGSQL."+strconv.Itoa(b.Port())); len(sock) <= maxSocketPath {
			if _, err := os.Stat(sock); err != nil {
				t.Errorf("no Unix socket in PgBouncer's directory: %v", err)
			}
		}
		if pid, err := readPidFile(filepath.Join(b.Dir(), bouncerPidName)); err != nil || pid != b.PID() {
			t.Errorf("pid file says %d, %v; want %d", pid, err, b.PID())
		}
		if os.Geteuid() == 0 {
			// /proc/PID belongs to the process's effective user.
			fi, err := os.Stat("/proc/" + strconv.Itoa(b.PID()))
			if err != nil || fi.Sys().(*syscall.Stat_t).Uid == 0 {
				t.Errorf("running as root, but pgbouncer runs as root too (stat: %v)", err)
			}
		}
		if got, need := procOpenFiles(t, b.PID()), uint64(3000+pooler.DefaultSize+bouncerFdReserve); got < need {
			t.Errorf("pgbouncer may open %d files, want at least %d for max_client_conn 3000", got, need)
		}
		assertServes(t, psqlBin, b)
		if psqlBin != "" {
			out, err := psql(t, psqlBin, b.AdminURL(), "SHOW VERSION")
			if err != nil || !strings.Contains(out, "PgBouncer "+b.Version()) {
				t.Errorf("SHOW VERSION = %q, %v; want PgBouncer %s", out, err, b.Version())
			}
			// What the pooler sampler reads: these columns exist in 1.18
			// and later (later versions add more).
			var row map[string]string
			for _, r := range psqlTable(t, psqlBin, b.AdminURL(), "SHOW STATS") {
				if r["database"] == "postgres" {
					row = r
				}
			}
			for _, col := range []string{"total_xact_count", "total_query_count", "total_received", "total_sent",
				"total_xact_time", "total_query_time", "total_wait_time", "avg_xact_count", "avg_wait_time"} {
				if _, ok := row[col]; !ok {
					t.Errorf("SHOW STATS row for postgres = %v: no column %s", row, col)
				}
			}
			if n, _ := strconv.Atoi(row["total_xact_count"]); n < 1 {
				t.Errorf("SHOW STATS total_xact_count = %q after a SELECT 1, want >= 1", row["total_xact_count"])
			}
			row = nil
			for _, r := range psqlTable(t, psqlBin, b.AdminURL(), "SHOW POOLS") {
				if r["database"] == "postgres" && r["user"] == "postgres" {
					row = r
				}
			}
			for _, col := range []string{"cl_active", "cl_waiting", "sv_active", "sv_idle", "sv_used", "maxwait", "maxwait_us"} {
				if _, ok := row[col]; !ok {
					t.Errorf("SHOW POOLS row for postgres/postgres = %v: no column %s", row, col)
				}
			}
			if row["pool_mode"] != "transaction" {
				t.Errorf("SHOW POOLS pool_mode = %q, want transaction", row["pool_mode"])
			}
		}

		assertStops(t, b)
		leftNone()
	})

	t.Run("Restart", func(t *testing.T) {
		b := startBouncer(t, backend(BouncerOptions{}))
		assertServes(t, psqlBin, b)
		port, dir, pid := b.Port(), b.Dir(), b.PID()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		t0 := time.Now()
		if err := b.Restart(ctx); err != nil {
			t.Fatalf("Restart: %v", err)
		}
		t.Logf("Restart took %v", time.Since(t0).Round(time.Millisecond))
		if b.Port() != port || b.Dir() != dir {
			t.Errorf("after Restart port %d dir %s, want port %d dir %s", b.Port(), b.Dir(), port, dir)
		}
		if b.PID() == pid || b.PID() == 0 {
			t.Errorf("PID() = %d after Restart, was %d", b.PID(), pid)
		}
		assertDead(t, pid)
		assertServes(t, psqlBin, b)
	})

	t.Run("Config", func(t *testing.T) {
		var log plain.Buffer
		b := startBouncer(t, backend(BouncerOptions{PoolMode: "Session", PoolSize: 7, MaxClientConn: 300, Log: &log}))
		conf, err := os.ReadFile(filepath.Join(b.Dir(), bouncerConfName))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{
			"pool_mode = session", "default_pool_size = 7", "max_client_conn = 300", "max_db_connections = 0",
			"server_reset_query = DISCARD ALL", "auth_type = scram-sha-256", "admin_users = postgres", "stats_users = postgres",
			"listen_addr = 127.0.0.1", fmt.Sprintf("listen_port = %d", b.Port()),
			fmt.Sprintf("* = host='127.0.0.1' port=%d user='postgres' password='%s'", c.Port(), c.Password()),
		} {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(line) + `$`).Match(conf) {
				t.Errorf("%s has no line %q:\n%s", bouncerConfName, line, conf)
			}
		}
		assertServes(t, psqlBin, b)
		if want := fmt.Sprintf("listening on 127.0.0.1:%d", b.Port()); !strings.Contains(log.String(), want) {
			t.Errorf("BouncerOptions.Log got %q, want %q", log.String(), want)
		}
		if psqlBin == "" {
			return
		}
		got := map[string]string{}
		for _, r := range psqlTable(t, psqlBin, b.AdminURL(), "SHOW CONFIG") {
			got[r["key"]] = r["value"]
		}
		for k, v := range map[string]string{
			"pool_mode": "session", "default_pool_size": "7", "max_client_conn": "300",
			"server_reset_query": "DISCARD ALL", "auth_type": "scram-sha-256", "listen_port": strconv.Itoa(b.Port()),
			"ignore_startup_parameters": "extra_float_digits,application_name,statement_timeout",
		} {
			if got[k] != v {
				t.Errorf("SHOW CONFIG %s = %q, want %q", k, got[k], v)
			}
		}
	})

	t.Run("Password", func(t *testing.T) {
		if psqlBin == "" {
			t.Skip("psql not found")
		}
		const pw = `it's a "pass" word`
		if _, err := psql(t, psqlBin, c.URL(), `CREATE ROLE bench LOGIN PASSWORD 'it''s a "pass" word'`); err != nil {
			t.Fatal(err)
		}
		b := startBouncer(t, BouncerOptions{BackendPort: c.Port(), BackendUser: "bench", BackendPassword: pw})
		if out, err := psql(t, psqlBin, b.URL("postgres"), "SELECT current_user"); err != nil || out != "bench" {
			t.Errorf("current_user through PgBouncer = %q, %v; want bench", out, err)
		}
		if out, err := psql(t, psqlBin, b.AdminURL(), "SHOW POOLS"); err != nil {
			t.Errorf("SHOW POOLS as bench: %q, %v", out, err)
		}
		// A wrong password: PgBouncer starts (it connects lazily), the
		// query fails with the server's answer.
		bad := startBouncer(t, BouncerOptions{BackendPort: c.Port(), BackendUser: "bench", BackendPassword: "wrong"})
		_, err := psql(t, psqlBin, bad.URL("postgres"), "SELECT 1")
		errSays(t, "SELECT 1 with a wrong backend password", err, "password authentication failed")
	})

	t.Run("PortInUse", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		busy := l.Addr().(*net.TCPAddr).Port
		leftNone := noneLeft(t, ourBouncerDirs)

		// A fixed port that is taken: PgBouncer listens on its Unix
		// socket only and keeps running; StartPgBouncer must notice.
		t0 := time.Now()
		b, err := StartPgBouncer(context.Background(), backend(BouncerOptions{Port: busy}))
		t.Logf("failed StartPgBouncer took %v: %v", time.Since(t0).Round(time.Millisecond), err)
		if err == nil {
			_ = b.Stop()
		}
		firstLineSays(t, "StartPgBouncer on a busy port", err, "already in use")
		errSays(t, "StartPgBouncer on a busy port", err, "PgBouncer log")
		leftNone()

		// A picked port that someone takes first: another pick.
		calls := pickBusyFirst(t, busy)
		b = startBouncer(t, backend(BouncerOptions{}))
		if b.Port() == busy || *calls != 2 {
			t.Errorf("port %d after %d picks, want a second pick other than the busy %d", b.Port(), *calls, busy)
		}
		assertServes(t, psqlBin, b)
	})

	t.Run("TCPOnly", func(t *testing.T) {
		// A TMPDIR too long for a Unix socket path: PgBouncer listens on
		// TCP only, and exits when it cannot.
		long := filepath.Join(ownTMPDIR(t), strings.Repeat("d", 100))
		if err := os.MkdirAll(long, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", long)

		b := startBouncer(t, backend(BouncerOptions{}))
		conf, err := os.ReadFile(filepath.Join(b.Dir(), bouncerConfName))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^unix_socket_dir = $`).Match(conf) {
			t.Errorf("%s does not disable the Unix socket:\n%s", bouncerConfName, conf)
		}
		assertServes(t, psqlBin, b)

		b2, err := StartPgBouncer(context.Background(), backend(BouncerOptions{Port: b.Port()}))
		if err == nil {
			_ = b2.Stop()
			t.Fatal("a second PgBouncer on the same port started")
		}
		t.Logf("second PgBouncer on port %d: %v", b.Port(), err)
		first, _, _ := strings.Cut(err.Error(), "\n")
		if !strings.Contains(first, "already in use") || !strings.Contains(err.Error(), "nowhere to listen on") {
			t.Errorf("error = %q, want port in use and the log tail with PgBouncer's FATAL", err)
		}
	})

	t.Run("CleanStale", func(t *testing.T) {
		b := startBouncer(t, backend(BouncerOptions{}))
		assertStaleKilled(t, b.PID(), b.Dir(), b.Stop)
	})
}

func TestBouncerBadOptions(t *testing.T) {
	leftNone := noneLeft(t, ourBouncerDirs)
	ok := BouncerOptions{BackendPort: 5432, BackendUser: "postgres"}
	for _, tc := range []struct {
		name  string
		edit  func(*BouncerOptions)
		wants []string
	}{
		{"pool mode", func(o *BouncerOptions) { o.PoolMode = "bogus" }, []string{"--pool-mode", `"bogus"`, "transaction", "session", "statement"}},
		{"pool size", func(o *BouncerOptions) { o.PoolSize = -1 }, []string{"--pgbouncer-pool-size", "-1"}},
		{"max client conn", func(o *BouncerOptions) { o.MaxClientConn = -5 }, []string{"max_client_conn", "-5"}},
		{"port", func(o *BouncerOptions) { o.Port = 70000 }, []string{"port 70000"}},
		{"backend port", func(o *BouncerOptions) { o.BackendPort = 0 }, []string{"backend port 0"}},
		{"no user", func(o *BouncerOptions) { o.BackendUser = "" }, []string{"user"}},
		{"user with comma", func(o *BouncerOptions) { o.BackendUser = "a,b" }, []string{`"a,b"`, "comma"}},
		{"password with newline", func(o *BouncerOptions) { o.BackendPassword = "a\nb" }, []string{"password", "control character"}},
		{"host with space", func(o *BouncerOptions) { o.BackendHost = "a b" }, []string{"host", `"a b"`}},
		{"binary", func(o *BouncerOptions) { o.Bin = "/nonexistent/txnbench/pgbouncer" }, []string{"--pgbouncer-bin"}},
	} {
		o := ok
		tc.edit(&o)
		_, err := StartPgBouncer(context.Background(), o)
		errSays(t, "StartPgBouncer with a bad "+tc.name, err, tc.wants...)
	}
	leftNone()
}

// TestBouncerOpenFiles asks for more clients than the open-files limit can
// ever allow: a clear error before anything starts.
func TestBouncerOpenFiles(t *testing.T) {
	needPgBouncer(t)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	ceiling := lim.Max // what a normal user may reach; root: fs.nr_open
	if b, err := os.ReadFile("/proc/sys/fs/nr_open"); err == nil && os.Geteuid() == 0 {
		ceiling, _ = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	}
	if ceiling >= 1<<30 {
		t.Skipf("open-files ceiling %d: cannot ask for more", ceiling)
	}
	leftNone := noneLeft(t, ourBouncerDirs)
	_, err := StartPgBouncer(context.Background(), BouncerOptions{BackendPort: 5432, BackendUser: "postgres", MaxClientConn: int(ceiling) + 1})
	t.Logf("max_client_conn %d: %v", ceiling+1, err)
	errSays(t, fmt.Sprintf("StartPgBouncer with max_client_conn %d", ceiling+1), err, "open files", "fewer clients")
	leftNone()
}

func TestFindPgBouncer(t *testing.T) {
	_, err := FindPgBouncer("/nonexistent/txnbench/pgbouncer")
	errSays(t, "FindPgBouncer(bogus)", err, "--pgbouncer-bin")
	dir := nonExecutables(t, "pgbouncer")
	for _, hint := range []string{filepath.Join(dir, "pgbouncer"), dir} {
		_, err := FindPgBouncer(hint)
		errSays(t, fmt.Sprintf("FindPgBouncer(%s, not executable)", hint), err, "--pgbouncer-bin")
	}
	// Nothing on PATH and no /usr/sbin/pgbouncer: the install hint.
	if !isExecutable(debianPgBouncer) {
		path := os.Getenv("PATH")
		t.Setenv("PATH", dir)
		if _, err := FindPgBouncer(""); !errors.Is(err, errBouncerNotFound) {
			t.Errorf("FindPgBouncer with nothing installed = %v, want %v", err, errBouncerNotFound)
		}
		t.Setenv("PATH", path)
	}
	errSays(t, "FindPgBouncer", errBouncerNotFound, "apt-get install pgbouncer", "--pgbouncer-bin")

	bin := needPgBouncer(t)
	if got, err := FindPgBouncer(bin); err != nil || got != bin {
		t.Errorf("FindPgBouncer(%q) = %q, %v; want it back", bin, got, err)
	}
	if got, err := FindPgBouncer(filepath.Dir(bin)); err != nil || got != bin {
		t.Errorf("FindPgBouncer(%q) = %q, %v; want %s", filepath.Dir(bin), got, err, bin)
	}
	v, err := bouncerVersion(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s is PgBouncer %s", bin, v)
	// Debian 12 ships 1.18, what the lead's protocol choice is about.
	if out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", "pgbouncer").Output(); err == nil &&
		strings.HasPrefix(string(out), "1.18") && !strings.HasPrefix(v, "1.18.") {
		t.Errorf("bouncerVersion = %q, but the Debian package is %s", v, out)
	}
}

func TestParseBouncerVersion(t *testing.T) {
	for in, want := range map[string]string{ // "" for none, and ok false
		"PgBouncer 1.18.0\nlibevent 2.1.12-stable\nadns: c-ares 1.18.1\ntls: OpenSSL 3.0.19 27 Jan 2026\nsystemd: yes\n": "1.18.0",
		"PgBouncer 1.23.1\n":                            "1.23.1",
		"pgbouncer version 1.7.2 (compiled by <x@y>)\n": "1.7.2",
		"libevent 2.1.12-stable\n":                      "",
		"":                                              "",
	} {
		if got, ok := parseBouncerVersion(in); got != want || ok != (want != "") {
			t.Errorf("parseBouncerVersion(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for v, want := range map[string]syscall.Signal{"1.18.0": syscall.SIGTERM, "1.22.1": syscall.SIGTERM, "1.23.0": syscall.SIGQUIT, "1.24.1": syscall.SIGQUIT} {
		if got := (&Bouncer{version: v}).immediateSignal(); got != want {
			t.Errorf("immediateSignal for %s = %v, want %v", v, got, want)
		}
	}
}

// TestBouncerConfigText checks the configuration text for the settings that
// do not need a running PgBouncer: quoting and per-mode defaults.
func TestBouncerConfigText(t *testing.T) {
	o, err := BouncerOptions{BackendPort: 5433, BackendUser: "o'neil", BackendPassword: `p'w "x"`, PoolMode: "statement"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	b := &Bouncer{supervised: supervised{dir: "/tmp/" + bouncerDirPrefix + "1"}, o: o}
	conf := b.config(20001)
	for _, line := range []string{
		`* = host='127.0.0.1' port=5433 user='o''neil' password='p''w "x"'`,
		"pool_mode = statement", "server_reset_query = ", "default_pool_size = 20", "max_client_conn = 1000",
		"listen_backlog = 1000", "unix_socket_dir = /tmp/" + bouncerDirPrefix + "1",
		"pidfile = /tmp/" + bouncerDirPrefix + "1/" + bouncerPidName,
	} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(line) + `$`).MatchString(conf) {
			t.Errorf("config has no line %q:\n%s", line, conf)
		}
	}
	if got := authQuote(`a"b`); got != `"a""b"` {
		t.Errorf(`authQuote(a"b) = %s`, got)
	}
}

// TestKilledBouncerOwner SIGKILLs a process that started a PgBouncer and
// checks that pgbouncer goes away on its own (Pdeathsig) and CleanStale
// removes the directory.
func TestKilledBouncerOwner(t *testing.T) {
	needPgBouncer(t)
	killOwner(t, "pgbouncer", "pgbouncer")
}

// readPidFile reads a file whose first line is a pid.
func readPidFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("bad pid file %s", path)
	}
	return pid, nil
}

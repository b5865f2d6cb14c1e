package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// runWithEnv runs the real command in a child process with env added to a
// copy of this process's environment cleared of libpq's and txnbench's
// variables, and returns its exit status and output.
func runWithEnv(t *testing.T, env []string, args ...string) (code int, out string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "TXNBENCH_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "TXNBENCH_CLI_MAIN=1"), env...)
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(b)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(b)
}

// TestLibpqEnvironment: a --db URL without host, port, user, database or
// sslmode takes them from PGHOST & co., a service file and ~/.pgpass as
// psql does; the result records the resolved URL (the host and port the
// run measured) without the password; a multi-host URL fails over from a
// dead host to a live one. Before txnbench resolved the URL, the result
// recorded "postgres://" alone.
func TestLibpqEnvironment(t *testing.T) {
	cl := testutil.Postgres(t)
	pw := cl.Password()
	dir := t.TempDir()
	pgpass := filepath.Join(dir, "pgpass")
	if err := os.WriteFile(pgpass, fmt.Appendf(nil, "127.0.0.1:%d:*:postgres:%s\n", cl.Port(), pw), 0o600); err != nil {
		t.Fatal(err)
	}
	services := filepath.Join(dir, "pg_service.conf")
	if err := os.WriteFile(services, fmt.Appendf(nil, "[bench]\nhost=127.0.0.1\nport=%d\nuser=postgres\ndbname=postgres\nsslmode=disable\n", cl.Port()), 0o600); err != nil {
		t.Fatal(err)
	}
	hostPort := fmt.Sprintf("127.0.0.1:%d", cl.Port())
	vars := []string{"PGHOST=127.0.0.1", fmt.Sprintf("PGPORT=%d", cl.Port()), "PGUSER=postgres", "PGPASSWORD=" + pw, "PGDATABASE=postgres", "PGSSLMODE=disable"}
	cases := []struct {
		name string
		db   string
		env  []string
		want []string // in the recorded URL
		more []string // flags
	}{
		{"environment", "postgres://", vars, []string{"postgres://postgres@" + hostPort + "/postgres", "sslmode=disable"}, nil},
		{"service file and pgpass", "postgresql://", []string{"PGSERVICEFILE=" + services, "PGSERVICE=bench", "PGPASSFILE=" + pgpass}, []string{"postgresql://postgres@" + hostPort + "/postgres"}, nil},
		{"failover", "postgres://127.0.0.1:1," + hostPort + "/postgres?sslmode=disable", vars, []string{"postgres://postgres@127.0.0.1:1," + hostPort + "/postgres"}, nil},
		// PgBouncer gets the backend's password from PGPASSWORD
		{"pgbouncer", "postgres://", vars, []string{"postgres://postgres@" + hostPort + "/postgres"}, []string{"--via", "pgbouncer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			if len(c.more) > 0 {
				testutil.NeedPgBouncer(t)
			}
			args := append([]string{"run", "train-events", "--db", c.db, "--clients", "2", "--iterations", "10", "--telemetry", "off", "--json", js}, quick...)
			args = append(args, c.more...)
			code, out := runWithEnv(t, c.env, args...)
			if code != exitcode.OK {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			raw, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw)+out, pw) {
				t.Errorf("the password from the environment is in the result or the output")
			}
			r, err := result.Load(js)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Config.DB, w) {
					t.Errorf("recorded db %q lacks %q", r.Config.DB, w)
				}
			}
		})
	}
}

package poolers

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestLibpqEnvironment: a --db URL without host, port, user, database or
// sslmode takes them from PGHOST & co., a service file and ~/.pgpass as
// psql does; the result records the resolved URL (the host and port the
// run measured) without the password; a multi-host URL fails over from a
// dead host to a live one. Before txnbench resolved the URL, the result
// recorded "postgres://" alone.
func TestLibpqEnvironment(t *testing.T) {
	u, err := url.Parse(testutil.SharedPostgres(t)) // the superuser postgres on the package's cluster, a database of its own
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	port, db := u.Port(), strings.TrimPrefix(u.Path, "/")
	dir := t.TempDir()
	pgpass := filepath.Join(dir, "pgpass")
	if err := os.WriteFile(pgpass, fmt.Appendf(nil, "127.0.0.1:%s:*:postgres:%s\n", port, pw), 0o600); err != nil {
		t.Fatal(err)
	}
	services := filepath.Join(dir, "pg_service.conf")
	if err := os.WriteFile(services, fmt.Appendf(nil, "[bench]\nhost=127.0.0.1\nport=%s\nuser=postgres\ndbname=%s\nsslmode=disable\n", port, db), 0o600); err != nil {
		t.Fatal(err)
	}
	hostPort := "127.0.0.1:" + port
	vars := []string{"PGHOST=127.0.0.1", "PGPORT=" + port, "PGUSER=postgres", "PGPASSWORD=" + pw, "PGDATABASE=" + db, "PGSSLMODE=disable"}
	cases := []struct {
		name string
		db   string
		env  []string
		want []string // in the recorded URL
		more []string // flags
	}{
		{"environment", "postgres://", vars, []string{"postgres://postgres@" + hostPort + "/" + db, "sslmode=disable"}, nil},
		{"service file and pgpass", "postgresql://", []string{"PGSERVICEFILE=" + services, "PGSERVICE=bench", "PGPASSFILE=" + pgpass}, []string{"postgresql://postgres@" + hostPort + "/" + db}, nil},
		{"failover", "postgres://127.0.0.1:1," + hostPort + "/" + db + "?sslmode=disable", vars, []string{"postgres://postgres@127.0.0.1:1," + hostPort + "/" + db}, nil},
		// PgBouncer gets the backend's password from PGPASSWORD
		{"pgbouncer", "postgres://", vars, []string{"postgres://postgres@" + hostPort + "/" + db}, []string{"--via", "pgbouncer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			if len(c.more) > 0 {
				testutil.NeedPgBouncer(t)
			}
			args := append([]string{"run", "train-events", "--db", c.db, "--clients", "2", "--iterations", "10", "--telemetry", "off", "--json", js}, clitest.Quick...)
			args = append(args, c.more...)
			code, out := clitest.RunWithEnv(t, c.env, args...)
			if code != exitcode.OK {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if strings.Contains(string(clitest.Read(t, js))+out, pw) {
				t.Errorf("the password from the environment is in the result or the output")
			}
			plain.Contains(t, "the recorded db", clitest.LoadResult(t, js).Config.DB, c.want...)
		})
	}
}

package diff

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// TestDatabaseKindIsRecorded: runs compare by the sort of database the
// job recorded (Config.Database), not by its URL; a result written before
// it compares by the form its DB showed, so old baselines still compare
// with new runs on the same sort of server, and a temp-mariadb is not a
// temp-postgres nor a server (it was "server" when diff read the URL).
func TestDatabaseKindIsRecorded(t *testing.T) {
	run := func(db, kind string) *result.Result {
		return &result.Result{Workload: "w", Config: result.Config{DB: db, Database: kind}}
	}
	same := [][2]*result.Result{
		{run("temp-postgres (postgres://u:xxxxx@127.0.0.1:20001/db)", ""), run("temp-postgres (postgres://u:xxxxx@127.0.0.1:20002/db)", "temp-postgres")},
		{run("temp-postgres@17 (postgres://u:xxxxx@127.0.0.1:20001/db)", ""), run("temp-postgres (postgres://u:xxxxx@127.0.0.1:20002/db)", "temp-postgres")},
		{run("temp-mariadb (mysql://u:xxxxx@127.0.0.1:20001/db)", ""), run("temp-mariadb (mysql://u:xxxxx@127.0.0.1:20002/db)", "temp-mariadb")},
		{run("sqlite (a temporary file, removed at exit)", ""), run("sqlite (a temporary file, removed at exit)", "sqlite")},
		{run("postgres://u@db1/x", ""), run("postgres://u@db2/x via PgBouncer 1.18.0 (transaction pooling, 20 server connections)", "server")},
	}
	for _, p := range same {
		if d := settingDifferences(p[0], p[1]); len(d) != 0 {
			t.Errorf("%s vs %s: %v, want none", p[0].Config.DB, p[1].Config.DB, d)
		}
	}
	differ := [][2]*result.Result{
		{run("temp-mariadb (mysql://u:xxxxx@127.0.0.1:20001/db)", "temp-mariadb"), run("mysql://u@db/x", "server")},
		{run("temp-postgres (postgres://u:xxxxx@127.0.0.1:20001/db)", "temp-postgres"), run("x", "temp-mariadb")},
		{run("sqlite:/tmp/a.db", ""), run("postgres://u@db/x", "server")},
	}
	for _, p := range differ {
		if d := settingDifferences(p[0], p[1]); len(d) != 1 || !strings.HasPrefix(d[0], "database ") {
			t.Errorf("%s vs %s: %v, want the database to differ", p[0].Config.DB, p[1].Config.DB, d)
		}
	}
}

package setup_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/pgbench/setup"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// timings masks the seconds in progress and "done in" lines.
var timings = regexp.MustCompile(`\d+\.\d\d s`)

func maskTimings(s string) string { return timings.ReplaceAllString(s, "X s") }

// server is a throwaway cluster of its own (TestDifferential makes a
// tablespace in its directory) with the real pgbench beside it.
type server struct {
	cl      *localdb.Cluster
	pgbench string
	admin   target.Conn
	n       int
}

func newServer(t *testing.T) *server {
	t.Helper()
	bin := testutil.Pgbench(t)
	// Nothing here survives a crash: the cases fill and drop hundreds of
	// megabytes of tables, which need not reach the disk.
	cl := testutil.Postgres(t, "fsync=off", "full_page_writes=off")
	s := &server{cl: cl, pgbench: bin}
	s.admin = connect(t, cl.URL())
	return s
}

// connect opens a session to the database at u for the rest of the test.
func connect(t *testing.T, u string) target.Conn {
	t.Helper()
	_, c, done := testutil.Conn(t, u)
	t.Cleanup(done)
	return c
}

// newDBUntil creates an empty database and returns its name and URL; it
// is dropped when until ends (t or a test t runs in): a dropped
// database's pages are never written, where the many tables the cases
// fill would be written by the cluster's last checkpoint.
func (s *server) newDBUntil(t, until *testing.T, prefix string) (string, string) {
	t.Helper()
	s.n++
	name := fmt.Sprintf("%s_%d", prefix, s.n)
	if _, err := s.admin.Exec(context.Background(), "create database "+name); err != nil {
		t.Fatal(err)
	}
	until.Cleanup(func() {
		if _, err := s.admin.Exec(context.Background(), "drop database "+name+" with (force)"); err != nil {
			until.Errorf("dropping %s: %v", name, err)
		}
	})
	u, _ := url.Parse(s.cl.URL())
	u.Path = "/" + name
	return name, u.String()
}

// runPgbench runs the real `pgbench -i args db` and returns its stderr.
func (s *server) runPgbench(t *testing.T, db string, args []string) (string, error) {
	t.Helper()
	all := append([]string{"-i", "-h", "127.0.0.1", "-p", strconv.Itoa(s.cl.Port()), "-U", "postgres"}, args...)
	cmd := exec.Command(s.pgbench, append(all, db)...)
	cmd.Env = append(os.Environ(), "PGOPTIONS=", "PGAPPNAME=pgbench", "PGPASSWORD="+s.cl.Password())
	var stderr, stdout bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stdout
	err := cmd.Run()
	if stdout.Len() > 0 {
		t.Errorf("pgbench wrote to stdout: %q", stdout.String())
	}
	return stderr.String(), err
}

// runOurs runs setup.Run into the database at u and returns what it
// printed, with a failure rendered as pgbench renders it.
func runOurs(t *testing.T, u string, o setup.Options) (string, error) {
	t.Helper()
	tg, c, done := testutil.Conn(t, u)
	defer done()
	var out bytes.Buffer
	err := setup.Run(context.Background(), c, tg.Dialect(), o, &out)
	if err != nil {
		out.WriteString(render(err))
	}
	return out.String(), err
}

// render prints an error as pgbench does.
func render(err error) string {
	var e *setup.Error
	if !errors.As(err, &e) {
		return "pgbench: error: " + err.Error() + "\n"
	}
	s := "pgbench: error: " + e.Msg + "\n"
	if e.Detail != "" {
		s += "pgbench: detail: " + e.Detail + "\n"
	}
	if e.Hint != "" {
		s += "pgbench: hint: " + e.Hint + "\n"
	}
	return s
}

// describe returns what the differential test compares: the definition
// of every pgbench table (kind, persistence, options, tablespace,
// partitioning, columns, constraints, indexes) and its data.
func describe(t *testing.T, u string) []string {
	t.Helper()
	c := connect(t, u)
	ctx := context.Background()
	var lines []string
	query := func(q string) {
		rows, err := c.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	query(`select concat_ws(' | ', c.relname, c.relkind, c.relpersistence, coalesce(c.reloptions::text, '-'),
	         coalesce(ts.spcname, '-'), coalesce(pg_get_partkeydef(c.oid), '-'),
	         coalesce(pg_get_expr(c.relpartbound, c.oid), '-'),
	         (select string_agg(format('%s %s%s', a.attname, format_type(a.atttypid, a.atttypmod),
	                                   case when a.attnotnull then ' not null' else '' end), ', ' order by a.attnum)
	            from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped))
	       from pg_class c left join pg_tablespace ts on ts.oid = c.reltablespace
	       where c.relname like 'pgbench%' and c.relnamespace = 'public'::regnamespace
	       order by c.relname`)
	query(`select concat_ws(' | ', conrelid::regclass, conname, contype, pg_get_constraintdef(oid))
	       from pg_constraint where conrelid::regclass::text like 'pgbench%' order by 1`)
	query(`select concat_ws(' | ', indexrelid::regclass, coalesce(ts.spcname, '-'), pg_get_indexdef(indexrelid))
	       from pg_index i join pg_class c on c.oid = i.indexrelid left join pg_tablespace ts on ts.oid = c.reltablespace
	       where indrelid::regclass::text like 'pgbench%' order by 1`)
	for _, q := range []string{
		`select format('branches: %s rows, sum %s, fillers %s/%s, md5 %s', count(*), sum(bbalance), count(filler), sum(octet_length(filler)), md5(string_agg(t::text, ',' order by bid))) from pgbench_branches t`,
		`select format('tellers: %s rows, sum %s, fillers %s/%s, md5 %s', count(*), sum(tbalance), count(filler), sum(octet_length(filler)), md5(string_agg(t::text, ',' order by tid))) from pgbench_tellers t`,
		`select format('accounts: %s rows, sum %s, fillers %s/%s, md5 %s', count(*), sum(abalance), count(filler), sum(octet_length(filler)), md5(string_agg(t::text, ',' order by aid))) from pgbench_accounts t`,
		`select format('history: %s rows', count(*)) from pgbench_history`,
	} {
		if !strings.Contains(strings.Join(lines, "\n"), "pgbench_branches") {
			break // no tables
		}
		query(q)
	}
	return lines
}

func diffLines(t *testing.T, what string, theirs, ours []string) {
	t.Helper()
	if strings.Join(theirs, "\n") != strings.Join(ours, "\n") {
		t.Errorf("%s differ\npgbench:\n  %s\nours:\n  %s", what, strings.Join(theirs, "\n  "), strings.Join(ours, "\n  "))
	}
}

// TestDifferential runs the real `pgbench -i` into one database and Run
// into another with the same options, then compares what they printed,
// the tables' definitions from pg_catalog and their data.
func TestDifferential(t *testing.T) {
	s := newServer(t)
	tsDir := filepath.Join(s.cl.Dir(), "ts")
	if err := os.Mkdir(tsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(s.cl.Dir(), "data")); err == nil {
		sys := st.Sys().(*syscall.Stat_t)
		os.Chown(tsDir, int(sys.Uid), int(sys.Gid))
	}
	if _, err := s.admin.Exec(context.Background(), "create tablespace \"my ts\" location '"+tsDir+"'"); err != nil {
		t.Fatal(err)
	}
	def := setup.Defaults()
	with := func(f func(o *setup.Options)) setup.Options {
		o := def
		f(&o)
		return o
	}
	cases := []struct {
		name  string
		args  []string
		opts  setup.Options
		again bool // compare a second run into the initialised database
		fails bool
	}{
		{"defaults", nil, def, false, false},
		{"scale 2", []string{"-s", "2"}, with(func(o *setup.Options) { o.Scale = 2 }), false, false},
		{"rerun", []string{"-s", "2"}, with(func(o *setup.Options) { o.Scale = 2 }), true, false},
		{"fillfactor and foreign keys", []string{"-F", "80", "--foreign-keys"},
			with(func(o *setup.Options) { o.FillFactor = 80; o.ForeignKeys = true }), false, false},
		{"unlogged", []string{"--unlogged-tables"}, with(func(o *setup.Options) { o.Unlogged = true }), false, false},
		{"range partitions", []string{"-s", "2", "--partitions", "3"},
			with(func(o *setup.Options) { o.Scale = 2; o.Partitions = 3 }), false, false},
		{"hash partitions unlogged", []string{"--partitions", "3", "--partition-method", "HASH", "--unlogged-tables", "-F", "90"},
			with(func(o *setup.Options) {
				o.Partitions = 3
				o.PartitionMethod = "HASH"
				o.Unlogged = true
				o.FillFactor = 90
			}), false, false},
		{"server-side", []string{"-I", "dtGvp"}, with(func(o *setup.Options) { o.Steps = "dtGvp" }), false, false},
		{"all steps and spaces", []string{"-I", "d t G v p f g"}, with(func(o *setup.Options) { o.Steps = "d t G v p f g" }), false, false},
		{"quiet, no vacuum", []string{"-q", "-n", "-s", "2"},
			with(func(o *setup.Options) { o.Quiet = true; o.NoVacuum = true; o.Scale = 2 }), false, false},
		{"tablespaces", []string{"--tablespace", "my ts", "--index-tablespace", "my ts", "--foreign-keys"},
			with(func(o *setup.Options) { o.Tablespace = "my ts"; o.IndexTablespace = "my ts"; o.ForeignKeys = true }), false, false},
		{"missing index tablespace", []string{"--index-tablespace", "nosuch", "-I", "dtgp"},
			with(func(o *setup.Options) { o.IndexTablespace = "nosuch"; o.Steps = "dtgp" }), false, true},
		{"generate without tables", []string{"-I", "g"}, with(func(o *setup.Options) { o.Steps = "g" }), false, true},
	}
	// A case that reruns an earlier case's command line (again) reruns it
	// into the databases that case initialised, when it passed, instead
	// of initialising two more the same way.
	type dbs struct{ theirDB, theirURL, ourURL string }
	left := map[string]dbs{}
	for i, tc := range cases {
		key := strings.Join(tc.args, " ")
		until := (*testing.T)(nil) // the end of the case, unless a later one reruns it
		for _, later := range cases[i+1:] {
			if later.again && strings.Join(later.args, " ") == key {
				until = t
			}
		}
		parent := t
		t.Run(tc.name, func(t *testing.T) {
			if until == nil {
				until = t
			}
			d, reuse := left[key]
			if !tc.again || !reuse {
				d.theirDB, d.theirURL = s.newDBUntil(t, until, "theirs")
				_, d.ourURL = s.newDBUntil(t, until, "ours")
			}
			theirDB, theirURL, ourURL := d.theirDB, d.theirURL, d.ourURL
			if tc.again && !reuse {
				if out, err := s.runPgbench(t, theirDB, tc.args); err != nil {
					t.Fatalf("pgbench: %v\n%s", err, out)
				}
				if out, err := runOurs(t, ourURL, tc.opts); err != nil {
					t.Fatalf("ours: %v\n%s", err, out)
				}
			}
			if until == parent {
				defer func() {
					if !t.Failed() {
						left[key] = d
					}
				}()
			}
			theirOut, theirErr := s.runPgbench(t, theirDB, tc.args)
			ourOut, ourErr := runOurs(t, ourURL, tc.opts)
			if (theirErr != nil) != tc.fails || (ourErr != nil) != tc.fails {
				t.Fatalf("want failure %v; pgbench: %v, ours: %v\npgbench:\n%s\nours:\n%s", tc.fails, theirErr, ourErr, theirOut, ourOut)
			}
			if tc.fails {
				// Only the error lines compare: pgbench's error message also
				// has the server's LINE/position lines, which ours lacks.
				theirOut = dropServerContext(theirOut)
			}
			diffLines(t, "outputs", strings.Split(maskTimings(theirOut), "\n"), strings.Split(maskTimings(ourOut), "\n"))
			diffLines(t, "tables", describe(t, theirURL), describe(t, ourURL))
		})
	}
}

// dropServerContext removes the lines libpq adds under a server error
// ("LINE 1: ...", the caret line).
func dropServerContext(s string) string {
	var keep []string
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "LINE ") {
			i++ // and the caret line under it
			continue
		}
		keep = append(keep, lines[i])
	}
	return strings.Join(keep, "\n")
}

// TestTableInfo reads the scale and partitioning back and compares the
// missing-table errors with pgbench's run mode.
func TestTableInfo(t *testing.T) {
	pgbench := testutil.Pgbench(t)
	newDB := func() (string, string) {
		u := testutil.SharedPostgres(t)
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimPrefix(p.Path, "/"), u
	}
	ctx := context.Background()
	cases := []struct {
		opts       setup.Options
		partitions int
		method     string
	}{
		{setup.Options{Scale: 3, FillFactor: 100, Steps: "dtG"}, 0, "none"},
		{setup.Options{Scale: 1, FillFactor: 100, Steps: "dt", Partitions: 4}, 4, "range"},
		{setup.Options{Scale: 2, FillFactor: 100, Steps: "dtG", Partitions: 2, PartitionMethod: "hash"}, 2, "hash"},
	}
	for _, tc := range cases {
		_, u := newDB()
		if out, err := runOurs(t, u, tc.opts); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		c := connect(t, u)
		want := tc.opts.Scale
		if !strings.ContainsAny(tc.opts.Steps, "gG") {
			want = 0
		}
		if got, err := setup.Scale(ctx, c); err != nil || got != want {
			t.Errorf("%+v: Scale = %d, %v; want %d", tc.opts, got, err, want)
		}
		n, m, err := setup.Partitioning(ctx, c)
		if err != nil || n != tc.partitions || m != tc.method {
			t.Errorf("%+v: Partitioning = %d, %q, %v; want %d, %q", tc.opts, n, m, err, tc.partitions, tc.method)
		}
	}

	// No tables: compare with what pgbench's run mode says.
	db, u := newDB()
	cmd := exec.Command(pgbench, "-t", "1", testutil.LibpqURL(u))
	theirs, _ := cmd.CombinedOutput()
	_, err := setup.Scale(ctx, connect(t, u))
	if err == nil {
		t.Fatal("Scale on an empty database: no error")
	}
	ours := render(err)
	for _, line := range strings.Split(ours, "\n") {
		if !strings.Contains(string(theirs), line) {
			t.Errorf("our line %q is not in pgbench's output:\n%s", line, theirs)
		}
	}
	if !strings.Contains(ours, "hint: Perhaps you need to do initialization (\"pgbench -i\") in database \""+db+"\".") {
		t.Errorf("no hint in %q", ours)
	}
	c := connect(t, u)
	if _, err := c.Exec(ctx, "create table pgbench_branches(bid int)"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := setup.Partitioning(ctx, c); err == nil || !strings.Contains(render(err), `no pgbench_accounts table found in "search_path"`) {
		t.Errorf("Partitioning without pgbench_accounts: %v", err)
	}
}

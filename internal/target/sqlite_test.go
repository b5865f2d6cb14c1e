package target_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

func connectTo(t *testing.T, tg target.Target) target.Conn {
	t.Helper()
	c, err := tg.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func countRows(t *testing.T, c target.Conn, table string) int {
	t.Helper()
	rows, err := c.Query(context.Background(), "SELECT count(*) FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := -1
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenSQLiteTemporaryFileIsRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir, where "sqlite:" puts its file
	glob := filepath.Join(tmp, "txnbench-sqlite-*")

	tg, err := target.OpenURL(context.Background(), "sqlite:")
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(glob)
	if len(dirs) != 1 {
		t.Fatalf("after Open: %d temporary directories %v, want 1", len(dirs), dirs)
	}
	c, err := tg.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(context.Background(), "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dirs[0], "*.db"))
	if len(files) != 1 {
		t.Errorf("temporary directory holds %v, want one .db file", files)
	}
	c.Close(context.Background())
	if err := tg.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(dirs[0]); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s still exists after Close (stat: %v)", dirs[0], err)
	}
	if left, _ := filepath.Glob(glob); len(left) != 0 {
		t.Errorf("after Close: %v left behind", left)
	}
}

func TestOpenSQLiteKeepsNamedFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keep.db")
	tg, err := target.OpenURL(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("sqlite:%s was removed on Close: %v", path, err)
	}
	again := connectTo(t, testutil.Open(t, "sqlite:"+path))
	if n := countRows(t, again, "t"); n != 1 {
		t.Errorf("reopened file has %d rows, want 1", n)
	}
}

func TestOpenSQLiteMissingDirectory(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, dir string }{
		{"/nonexistent/dir/x.db", "/nonexistent/dir"},
		{filepath.Join(notADir, "x.db"), notADir},
	}
	for _, tc := range tests {
		_, err := target.OpenURL(context.Background(), "sqlite:"+tc.path)
		if err == nil {
			t.Errorf("Open(sqlite:%s) succeeded, want an error", tc.path)
			continue
		}
		if !strings.Contains(err.Error(), tc.dir) || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("Open(sqlite:%s) error = %q, want it to say directory %s does not exist", tc.path, err, tc.dir)
		}
	}
	if _, err := os.Stat("/nonexistent/dir/x.db"); err == nil {
		t.Error("Open created /nonexistent/dir/x.db")
	}
}

func TestSQLiteDialect(t *testing.T) {
	d := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "d.db")).Dialect()
	if d.Name != "SQLite" {
		t.Errorf("Name = %q, want SQLite", d.Name)
	}
	if !regexp.MustCompile(`^3\.\d+\.\d+$`).MatchString(d.Version) {
		t.Errorf("Version = %q, want 3.x.y", d.Version)
	}
	if d.Banner != "SQLite "+d.Version {
		t.Errorf("Banner = %q, want %q", d.Banner, "SQLite "+d.Version)
	}
	c := d.Caps
	checks := []struct {
		name      string
		got, want bool
	}{
		{"JSONB", c.JSONB, true},
		{"GeneratedColumns", c.GeneratedColumns, true},
		{"SkipLocked", c.SkipLocked, false},
		{"ArrayParams", c.ArrayParams, false},
		{"Enums", c.Enums, false},
		{"RetriesSerialization", c.RetriesSerialization, false},
		{"StatViews", c.StatViews, false},
		{"PostgresDDL", c.PostgresDDL, false},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("Caps.%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	if ddl := c.InvertedIndexDDL("i", "t", "payload"); ddl != "" {
		t.Errorf("InvertedIndexDDL = %q, want \"\" (SQLite has no inverted index)", ddl)
	}
	if c.UUIDType != "TEXT" || c.JSONType != "BLOB" || c.TimestampType != "TEXT" {
		t.Errorf("types = %q %q %q, want TEXT BLOB TEXT", c.UUIDType, c.JSONType, c.TimestampType)
	}
}

// TestSQLiteNowExpression runs the dialect's Now: it must be an RFC 3339
// UTC timestamp close to the current time.
func TestSQLiteNowExpression(t *testing.T) {
	tg := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "n.db"))
	c := connectTo(t, tg)
	rows, err := c.Query(context.Background(), "SELECT "+tg.Dialect().Caps.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var s string
	for rows.Next() {
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("Now gave %q: %v", s, err)
	}
	if d := time.Since(ts); d < -time.Minute || d > time.Minute {
		t.Errorf("Now gave %v, %v away from the clock", ts, d)
	}
}

func TestSQLiteConnRoundTrip(t *testing.T) {
	ctx := context.Background()
	tg := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "rt.db"))
	c := connectTo(t, tg)

	if _, err := c.Exec(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Errorf("Rollback without Begin = %v, want nil", err)
	}

	// Rolled back: no row.
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Exec(ctx, "INSERT INTO t (id, v) VALUES ($1, $2)", 1, "gone"); err != nil || n != 1 {
		t.Fatalf("Exec INSERT = %d, %v; want 1, nil", n, err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, c, "t"); n != 0 {
		t.Errorf("after Rollback: %d rows, want 0", n)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Errorf("second Rollback = %v, want nil", err)
	}

	// Committed: the rows stay, and another connection sees them.
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Exec(ctx, "INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c')"); err != nil || n != 3 {
		t.Fatalf("Exec INSERT = %d, %v; want 3, nil", n, err)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Errorf("Rollback after Commit = %v, want nil", err)
	}
	other := connectTo(t, tg)
	if n := countRows(t, other, "t"); n != 3 {
		t.Errorf("after Commit: %d rows seen by another connection, want 3", n)
	}
	if n, err := c.Exec(ctx, "UPDATE t SET v = 'z' WHERE id >= $1", 2); err != nil || n != 2 {
		t.Errorf("Exec UPDATE = %d, %v; want 2, nil", n, err)
	}

	// Numbered placeholders bind by number, not by position in the text.
	rows, err := c.Query(ctx, "SELECT $2, $1", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	var a, b int
	got := 0
	for rows.Next() {
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		got++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if got != 1 || a != 2 || b != 1 {
		t.Errorf("SELECT $2, $1 with (1, 2) = %d rows, (%d, %d); want 1 row (2, 1)", got, a, b)
	}

	if c.Broken() {
		t.Error("Broken() = true on a healthy connection")
	}
}

func TestOpenUnknownSpec(t *testing.T) {
	// "" is the default temporary SQLite (ParseSpec); the CLI refuses an
	// empty --db itself.
	for _, spec := range []string{"mongodb://x", "mongodb://root:s3cretpw@h/db", "sqlite", "postgres:/x"} {
		tg, err := target.OpenURL(context.Background(), spec)
		if err == nil {
			tg.Close()
			t.Errorf("Open(%q) succeeded, want an error", spec)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "temp-postgres") || !strings.Contains(msg, "sqlite:PATH") {
			t.Errorf("Open(%q) error = %q, want it to name the accepted forms", spec, msg)
		}
		if strings.Contains(msg, "s3cretpw") {
			t.Errorf("Open(%q) error leaks the password: %s", spec, msg)
		}
	}
}

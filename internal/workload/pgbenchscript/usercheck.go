package pgbenchscript

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/userfile"
)

// maxSQLFile is the largest SQL file read: a script of -f, a --setup or
// --check file.
const maxSQLFile = 1 << 20

// userCheck is one statement of a --setup or --check file, named by the
// comment line before it; where is FILE:LINE, the line it starts on.
type userCheck struct {
	name, sql, where string
}

// readSQLFile reads a --setup or --check file: statements ending with
// ';' at the end of a line, each named by the last comment line ("--")
// before it ("-- name:" is optional). With named, a statement without a
// name is refused, and so are two of one name (a result has one line per
// name). An empty path reads nothing.
func readSQLFile(path, flag string, named bool) ([]userCheck, error) {
	if path == "" {
		return nil, nil
	}
	text, err := userfile.Read(path, maxSQLFile, "an SQL file")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	var out []userCheck
	var name string
	var stmt []string
	start := 0
	named1 := map[string]string{} // where each name is first
	for n, line := range strings.Split(string(text), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case len(stmt) == 0 && strings.HasPrefix(t, "--"):
			name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(t, "--")), "name:"))
			continue
		case len(stmt) == 0 && t == "":
			continue
		}
		if len(stmt) == 0 {
			start = n + 1
		}
		stmt = append(stmt, line)
		if strings.HasSuffix(t, ";") {
			where := fmt.Sprintf("%s:%d", path, start)
			if named && name == "" {
				return nil, fmt.Errorf("%s %s: the check has no name: put a comment line (-- name) before it", flag, where)
			}
			if first, dup := named1[name]; named && dup {
				return nil, fmt.Errorf("%s: two checks named %q, at %s and %s: give each its own name", flag, name, first, where)
			}
			named1[name] = where
			out = append(out, userCheck{name: name, sql: strings.TrimSpace(strings.Join(stmt, "\n")), where: where})
			name, stmt = "", nil
		}
	}
	if len(stmt) > 0 {
		return nil, fmt.Errorf("%s %s: the last statement does not end with ';'", flag, path)
	}
	if named && len(out) == 0 {
		return nil, fmt.Errorf("%s %s: no checks in it: write queries that return true, each after a comment naming it", flag, path)
	}
	return out, nil
}

// runSetup runs the --setup file's statements in order.
func (w *Workload) runSetup(ctx context.Context, c target.Conn) error {
	for _, s := range w.setupSQL {
		if _, err := c.Exec(ctx, s.sql); err != nil {
			stmt, _, _ := strings.Cut(s.sql, "\n")
			return fmt.Errorf("--setup %s: %s: %w", s.where, stmt, err)
		}
	}
	return nil
}

// checkUser runs the --check file's queries, each in a read-only
// transaction of its own: each holds when it returns no rows or rows whose
// first column is true. A query that writes fails the check stage, saying
// so (the run exits 1, as for a query that cannot run).
func (w *Workload) checkUser(ctx context.Context, c target.Conn, ch *result.Check) error {
	for _, q := range w.checks {
		var ok bool
		var detail string
		var qerr error // the query's own, not the transaction's
		err := target.ReadOnly(ctx, c, w.caps, func() error {
			ok, detail, qerr = holds(ctx, c, q.sql)
			return qerr
		})
		if qerr != nil && target.Classify(qerr) == errclass.ReadOnly {
			// A broken check, not lost data: the run fails (exit 1), as
			// for any check that cannot run, never VIOLATED (exit 3).
			msg, _, _ := strings.Cut(target.Message(err), "\n")
			return fmt.Errorf("--check %s: %s: it writes, and a check may only read: checks run in a read-only transaction (%s)", q.where, q.name, msg)
		}
		if err != nil {
			stmt, _, _ := strings.Cut(q.sql, "\n")
			return fmt.Errorf("--check %s: %s: %s: %w", q.where, q.name, stmt, err)
		}
		ch.Add(q.name, ok, "%s", detail)
	}
	return nil
}

func holds(ctx context.Context, c target.Conn, q string) (ok bool, detail string, err error) {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return false, "", err
	}
	defer rows.Close()
	n := 0
	ok = true
	for rows.Next() {
		v, err := target.FirstColumn(rows)
		if errors.Is(err, target.ErrNoColumn) {
			return false, "", fmt.Errorf("%w: select the condition first, e.g. SELECT count(*) = 0 FROM t WHERE ...", err)
		}
		if err != nil {
			return false, "", err
		}
		n++
		if ok && !truthy(v) {
			ok, detail = false, fmt.Sprintf("row %d: %v", n, v)
		}
	}
	if err := rows.Err(); err != nil {
		return false, "", err
	}
	if ok {
		detail = fmt.Sprintf("%d rows, all true", n)
	}
	return ok, detail, nil
}

// truthy reads a boolean as the engines return one: PostgreSQL's bool,
// SQLite's 1 (or the text "t"/"true").
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x == 1
	case int32: // PostgreSQL's integer
		return x == 1
	case int16:
		return x == 1
	case []byte:
		return truthy(string(x))
	case string:
		s := strings.ToLower(x)
		return s == "t" || s == "true" || s == "1"
	}
	return false
}

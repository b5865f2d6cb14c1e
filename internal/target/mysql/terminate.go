package mysql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/go-sql-driver/mysql"
	"github.com/txnbench/txnbench/internal/target"
)

// errUnknownThread is KILL's error for a session that ended meanwhile.
const errUnknownThread = 1094

// programName is the connection attribute txnbench's sessions carry
// (performance_schema.session_connect_attrs), beside the driver's _pid.
const programName = "txnbench"

// TerminateSessions KILLs this process's sessions on the server: those
// whose connection attributes name txnbench and this process's pid. It
// needs performance_schema (temp-mariadb enables it).
func (t *mysqlTarget) TerminateSessions(ctx context.Context) (int64, error) {
	c, err := t.Connect(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	rows, err := c.Query(ctx, `SELECT p.PROCESSLIST_ID FROM performance_schema.session_connect_attrs AS p
		JOIN performance_schema.session_connect_attrs AS n ON n.PROCESSLIST_ID = p.PROCESSLIST_ID
		WHERE p.ATTR_NAME = '_pid' AND p.ATTR_VALUE = $1 AND n.ATTR_NAME = 'program_name' AND n.ATTR_VALUE = $2
		AND p.PROCESSLIST_ID <> CONNECTION_ID()`, strconv.Itoa(os.Getpid()), programName)
	if err != nil {
		return 0, fmt.Errorf("listing the run's sessions (performance_schema must be on): %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	var n int64
	for _, id := range ids {
		_, err := c.Exec(ctx, "KILL CONNECTION "+strconv.FormatInt(id, 10))
		me, _ := errors.AsType[*mysql.MySQLError](err)
		switch {
		case err == nil:
			n++
		case me != nil && me.Number == errUnknownThread:
		default:
			return n, err
		}
	}
	return n, nil
}

var _ target.SessionTerminator = (*mysqlTarget)(nil)

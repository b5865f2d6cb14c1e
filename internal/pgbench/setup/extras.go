package setup

import (
	"context"
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
)

// InsertKeys is the first key of the rows txnbench's own builtin scripts
// insert: loaded rows have keys 1 to N, inserted ones InsertKeys and up,
// so the loaded rows can be told apart (and counted) whatever the run
// inserted.
const InsertKeys = int64(1) << 40

// Keys is what a check compares in one table: the loaded rows (keys
// below InsertKeys) by count and range, and the inserted ones by count.
type Keys struct {
	Loaded, Min, Max, Inserted int64
}

// ReadKeys reads table's Keys by its key column. A missing table gives
// the driver's undefined-table error (target.IsUndefinedTable).
func ReadKeys(ctx context.Context, c target.Conn, table, key string) (Keys, error) {
	var k Keys
	q := fmt.Sprintf("SELECT count(CASE WHEN %[2]s < %[3]d THEN 1 END), coalesce(min(%[2]s), 0), "+
		"coalesce(max(CASE WHEN %[2]s < %[3]d THEN %[2]s END), 0), count(CASE WHEN %[2]s >= %[3]d THEN 1 END) FROM %[1]s",
		table, key, InsertKeys)
	if err := target.QueryRow(ctx, c, q, nil, &k.Loaded, &k.Min, &k.Max, &k.Inserted); err != nil {
		return k, fmt.Errorf("reading %s's keys: %w", table, err)
	}
	return k, nil
}

// NextKey is the key the next inserted row takes: InsertKeys, or past
// every key the table has.
func NextKey(ctx context.Context, c target.Conn, table, key string) (int64, error) {
	var m int64
	if err := target.QueryRow(ctx, c, fmt.Sprintf("SELECT coalesce(max(%s), 0) FROM %s", key, table), nil, &m); err != nil {
		return 0, fmt.Errorf("reading %s's largest key: %w", table, err)
	}
	return max(m+1, InsertKeys), nil
}

// ycsbChars are the characters a YCSB field is cut from.
const ycsbChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// YCSB creates YCSB's usertable (ycsb_key and field0 to field9 of 100
// characters), replacing one that exists, and loads records rows with
// keys 1 to records, in one transaction (COPY on PostgreSQL): the table
// exists only complete.
func YCSB(ctx context.Context, c target.Conn, records int64) error {
	cols := []string{"ycsb_key bigint NOT NULL PRIMARY KEY"}
	for i := 0; i < 10; i++ {
		cols = append(cols, fmt.Sprintf("field%d varchar(100) NOT NULL", i))
	}
	create := "CREATE TABLE usertable (" + strings.Join(cols, ", ") + ")"
	var field [100]byte
	key := int64(0)
	rows := func(r *target.CopyRow) (bool, error) {
		if key == records {
			return false, nil
		}
		key++
		r.Int(key)
		for f := 0; f < 10; f++ {
			for i := range field {
				field[i] = ycsbChars[(int(key)*7+f*13+i)%len(ycsbChars)]
			}
			r.Text(string(field[:]))
		}
		return true, nil
	}
	return load(ctx, c, "usertable", []string{create}, rows, records)
}

// sbChars are the digits sysbench's c and pad values are made of.
const sbChars = "0123456789"

// Sysbench creates sysbench's tables sbtest1 to sbtestN (id, k, c
// char(120), pad char(60), and the index on k), replacing ones that
// exist, each with size rows of ids 1 to size, each in one transaction.
func Sysbench(ctx context.Context, c target.Conn, tables int, size int64) error {
	for t := 1; t <= tables; t++ {
		name := fmt.Sprintf("sbtest%d", t)
		create := []string{
			"CREATE TABLE " + name + " (id bigint NOT NULL PRIMARY KEY, k integer NOT NULL DEFAULT 0, " +
				"c char(120) NOT NULL DEFAULT '', pad char(60) NOT NULL DEFAULT '')",
			fmt.Sprintf("CREATE INDEX k_%d ON %s (k)", t, name),
		}
		id := int64(0)
		var cv [119]byte
		var pv [59]byte
		fill := func(b []byte, seed int64) {
			for i := range b {
				if i%12 == 11 {
					b[i] = '-'
				} else {
					b[i] = sbChars[(seed*31+int64(i)*7)%10]
				}
			}
		}
		rows := func(r *target.CopyRow) (bool, error) {
			if id == size {
				return false, nil
			}
			id++
			r.Int(id)
			r.Int((id*7919)%size + 1)
			fill(cv[:], id)
			r.Text(string(cv[:]))
			fill(pv[:], id+1)
			r.Text(string(pv[:]))
			return true, nil
		}
		if err := load(ctx, c, name, create, rows, size); err != nil {
			return err
		}
	}
	return nil
}

// load drops table, creates it with create and copies n rows into it,
// all in one transaction.
func load(ctx context.Context, c target.Conn, table string, create []string, rows target.CopySource, n int64) error {
	copier, ok := c.(target.Copier)
	if !ok {
		return fmt.Errorf("loading %s needs a connection that can copy rows in bulk", table)
	}
	if err := c.Begin(ctx); err != nil {
		return fmt.Errorf("loading %s: %w", table, err)
	}
	err := func() error {
		for _, s := range append([]string{"DROP TABLE IF EXISTS " + table}, create...) {
			if _, err := c.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		got, err := copier.CopyFrom(ctx, target.Copy{Table: table, Rows: rows})
		if err != nil {
			return err
		}
		if got != n {
			return fmt.Errorf("copied %d of %d rows", got, n)
		}
		return c.Commit(ctx)
	}()
	if err != nil {
		c.Rollback(context.WithoutCancel(ctx))
		return fmt.Errorf("loading %s: %w", table, err)
	}
	return nil
}

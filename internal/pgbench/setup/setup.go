package setup

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/target"
)

// pgbench's rows per scale unit.
const (
	nBranches = 1
	nTellers  = 10
	nAccounts = 100000
	// scale32BitThreshold is the scale from which account ids are bigint.
	scale32BitThreshold = 20000
	// logStepSeconds is how often -q logs data generation.
	logStepSeconds = 5
)

// Tables are pgbench's tables, in the order pgbench names them in DROP and
// TRUNCATE.
var Tables = []string{"pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"}

// Run initialises the pgbench tables on c, running o's steps in order and
// writing pgbench's progress lines to out, the last being
// "done in X s (drop tables X s, ...).". A failed statement gives an
// *Error reading "query failed: ..." with the statement as its Detail.
// On SQLite, options that cannot apply there (unlogged tables,
// fillfactor, partitions, tablespaces, foreign keys) are refused before
// anything runs; vacuum is ANALYZE and primary keys are unique indexes.
func Run(ctx context.Context, c target.Conn, d target.Dialect, o Options, out io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	method, _ := o.method()
	r := &initRun{ctx: ctx, c: c, o: o, method: method, out: out, pgDDL: d.Caps.PostgresDDL, caps: d.Caps}
	steps := o.EffectiveSteps()
	if !r.pgDDL {
		if err := ddlApplies(o, steps, d.Name); err != nil {
			return err
		}
	}
	var stats []string
	total := 0.0
	for i := 0; i < len(steps); i++ {
		start := time.Now()
		var op string
		var err error
		switch steps[i] {
		case 'd':
			op, err = "drop tables", r.dropTables()
		case 't':
			op, err = "create tables", r.createTables()
		case 'g':
			op, err = "client-side generate", r.generateClientSide()
		case 'G':
			op, err = "server-side generate", r.generateServerSide()
		case 'v':
			op, err = "vacuum", r.vacuum()
		case 'p':
			op, err = "primary keys", r.primaryKeys()
		case 'f':
			op, err = "foreign keys", r.foreignKeys()
		case ' ':
			continue
		default: // Validate lets nothing else through
			return CheckSteps(steps[i : i+1])
		}
		if err != nil {
			// A failed generation step leaves its transaction open.
			c.Rollback(context.WithoutCancel(ctx))
			return err
		}
		el := time.Since(start).Seconds()
		stats = append(stats, fmt.Sprintf("%s %.2f s", op, el))
		total += el
	}
	r.printf("done in %.2f s (%s).\n", total, strings.Join(stats, ", "))
	return nil
}

// CheckEmbedded refuses, before a database is opened, the options an
// embedded database (SQLite, named name) has no equivalent for, as Run
// would once it is.
func (o Options) CheckEmbedded(name string) error {
	return ddlApplies(o, o.EffectiveSteps(), name)
}

// ddlApplies refuses the options that a dialect without PostgreSQL's DDL
// (SQLite; name is the dialect's) has no equivalent for.
func ddlApplies(o Options, steps, name string) error {
	var why string
	switch {
	case o.Unlogged:
		why = "--unlogged-tables: " + name + " has no unlogged tables"
	case o.FillFactor != 100:
		why = "-F/--fillfactor: " + name + " has no fillfactor"
	case o.Partitions > 0:
		why = "--partitions: " + name + " has no table partitioning"
	case o.Tablespace != "" || o.IndexTablespace != "":
		why = "--tablespace/--index-tablespace: " + name + " has no tablespaces"
	case strings.Contains(steps, "f"):
		why = "--foreign-keys (step f): " + name + " cannot add foreign keys to existing tables"
	default:
		return nil
	}
	return &Error{Msg: why, Hint: "Leave the option out for " + name + ", or initialise a PostgreSQL database."}
}

type initRun struct {
	ctx    context.Context
	c      target.Conn
	o      Options
	method string // none, range or hash
	out    io.Writer
	pgDDL  bool // the dialect has PostgreSQL's DDL (Capabilities.PostgresDDL)
	caps   target.Capabilities
}

func (r *initRun) printf(format string, args ...any) {
	fmt.Fprintf(r.out, format, args...)
}

// exec runs one statement, failing as pgbench's executeStatement does.
func (r *initRun) exec(sql string) error {
	if _, err := r.c.Exec(r.ctx, sql); err != nil {
		return queryError(sql, err)
	}
	return nil
}

func queryError(sql string, err error) error {
	return &Error{Msg: "query failed: " + serverText(err, sql), Detail: "Query was: " + sql, Err: err}
}

// serverText renders an error of sql as libpq does ("ERROR:  message",
// then the LINE and caret, DETAIL, ... lines).
func serverText(err error, sql string) string {
	return strings.TrimSuffix(target.ResultMessage(err, sql), "\n")
}

// quoteIdent quotes an identifier as PQescapeIdentifier does.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func (r *initRun) dropTables() error {
	r.printf("dropping old tables...\n")
	if !r.pgDDL {
		for _, t := range Tables {
			if err := r.exec("drop table if exists " + t); err != nil {
				return err
			}
		}
		return nil
	}
	r.dropNotices()
	return r.exec("drop table if exists " + strings.Join(Tables, ", "))
}

// dropNotices prints the notices DROP TABLE IF EXISTS sends for missing
// tables. pgbench shows them through libpq's default notice processor;
// target.Conn does not pass notices on, so they are derived from which
// tables the search path resolves, in the order the server sends them.
func (r *initRun) dropNotices() {
	rows, err := r.c.Query(r.ctx, "select t from unnest(array['"+strings.Join(Tables, "','")+"']) with ordinality as u(t, i) where to_regclass(t) is null order by i")
	if err != nil {
		return // the notices are cosmetic
	}
	defer rows.Close()
	var missing []string
	for rows.Next() {
		var t string
		if rows.Scan(&t) != nil {
			return
		}
		missing = append(missing, t)
	}
	if rows.Err() != nil {
		return
	}
	for _, t := range missing {
		r.printf("NOTICE:  table \"%s\" does not exist, skipping\n", t)
	}
}

// ddl is one of pgbench's tables: its columns when account ids are 32 and
// 64 bits, and whether it takes a fillfactor.
type ddl struct {
	table, smallCols, bigCols string
	fillFactor                bool
}

var ddls = []ddl{
	{"pgbench_history", "tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
		"tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)", false},
	{"pgbench_tellers", "tid int not null,bid int,tbalance int,filler char(84)",
		"tid int not null,bid int,tbalance int,filler char(84)", true},
	{"pgbench_accounts", "aid    int not null,bid int,abalance int,filler char(84)",
		"aid bigint not null,bid int,abalance int,filler char(84)", true},
	{"pgbench_branches", "bid int not null,bbalance int,filler char(88)",
		"bid int not null,bbalance int,filler char(88)", true},
}

func (r *initRun) createTables() error {
	r.printf("creating tables...\n")
	for _, d := range ddls {
		var q strings.Builder
		q.WriteString("create")
		// pgbench 15 makes every table unlogged, the partitioned
		// pgbench_accounts too; newer pgbench leaves all but the
		// partitions logged when partitioning (PostgreSQL 18 refuses
		// unlogged partitioned tables).
		if r.o.Unlogged {
			q.WriteString(" unlogged")
		}
		q.WriteString(" table " + d.table + "(")
		if r.o.Scale >= scale32BitThreshold {
			q.WriteString(d.bigCols)
		} else {
			q.WriteString(d.smallCols)
		}
		q.WriteString(")")
		switch {
		case r.method != "none" && d.table == "pgbench_accounts":
			q.WriteString(" partition by " + r.method + " (aid)")
		case d.fillFactor && r.pgDDL:
			fmt.Fprintf(&q, " with (fillfactor=%d)", r.o.FillFactor)
		}
		if r.o.Tablespace != "" {
			q.WriteString(" tablespace " + quoteIdent(r.o.Tablespace))
		}
		if err := r.exec(q.String()); err != nil {
			return err
		}
	}
	if r.method != "none" {
		return r.createPartitions()
	}
	return nil
}

func (r *initRun) createPartitions() error {
	n := r.o.Partitions
	r.printf("creating %d partitions...\n", n)
	unlogged := ""
	if r.o.Unlogged {
		unlogged = " unlogged"
	}
	partSize := (int64(nAccounts)*int64(r.o.Scale) + int64(n) - 1) / int64(n)
	for p := 1; p <= n; p++ {
		q := fmt.Sprintf("create%s table pgbench_accounts_%d\n  partition of pgbench_accounts\n", unlogged, p)
		if r.method == "range" {
			from, to := "minvalue", "maxvalue"
			if p > 1 {
				from = strconv.FormatInt(int64(p-1)*partSize+1, 10)
			}
			if p < n {
				to = strconv.FormatInt(int64(p)*partSize+1, 10)
			}
			q += "  for values from (" + from + ") to (" + to + ")"
		} else {
			q += fmt.Sprintf("  for values with (modulus %d, remainder %d)", n, p-1)
		}
		q += fmt.Sprintf(" with (fillfactor=%d)", r.o.FillFactor)
		if err := r.exec(q); err != nil {
			return err
		}
	}
	return nil
}

// truncate empties the tables inside the data generation's transaction.
func (r *initRun) truncate() error {
	if !r.pgDDL {
		for _, t := range Tables {
			if err := r.exec("delete from " + t); err != nil {
				return err
			}
		}
		return nil
	}
	return r.exec("truncate table " + strings.Join(Tables, ", "))
}

func (r *initRun) begin() error {
	if err := r.c.Begin(r.ctx); err != nil {
		return queryError("begin", err)
	}
	return nil
}

func (r *initRun) commit() error {
	if err := r.c.Commit(r.ctx); err != nil {
		return queryError("commit", err)
	}
	return nil
}

// generateClientSide is PostgreSQL 15's client-side generation: branches
// and tellers row by row with INSERT, accounts with COPY (FREEZE on 14
// and later for an unpartitioned table), all in one transaction.
func (r *initRun) generateClientSide() error {
	r.printf("generating data (client-side)...\n")
	copier, ok := r.c.(target.Copier)
	if !ok {
		return &Error{Msg: "client-side data generation needs a connection that can copy rows in bulk"}
	}
	if err := r.begin(); err != nil {
		return err
	}
	if err := r.truncate(); err != nil {
		return err
	}
	for i := 0; i < nBranches*r.o.Scale; i++ {
		if err := r.exec(fmt.Sprintf("insert into pgbench_branches(bid,bbalance) values(%d,0)", i+1)); err != nil {
			return err
		}
	}
	for i := 0; i < nTellers*r.o.Scale; i++ {
		if err := r.exec(fmt.Sprintf("insert into pgbench_tellers(tid,bid,tbalance) values (%d,%d,0)", i+1, i/nTellers+1)); err != nil {
			return err
		}
	}
	freeze, err := r.canFreeze()
	if err != nil {
		return err
	}
	g := r.accounts()
	n, err := copier.CopyFrom(r.ctx, target.Copy{Table: "pgbench_accounts", Freeze: freeze, Rows: g.next})
	if err != nil {
		if target.IsServerError(err) || r.ctx.Err() != nil {
			return queryError(copyStatement(freeze), err)
		}
		return &Error{Msg: "copying pgbench_accounts failed: " + err.Error(), Err: err}
	}
	if n != g.total {
		return &Error{Msg: fmt.Sprintf("copied %d of %d pgbench_accounts rows", n, g.total)}
	}
	if r.o.Terminal {
		r.printf("\n")
	}
	return r.commit()
}

func copyStatement(freeze bool) string {
	if freeze {
		return "copy pgbench_accounts from stdin with (freeze on)"
	}
	return "copy pgbench_accounts from stdin"
}

// canFreeze: COPY FREEZE on PostgreSQL 14 and later into a plain table
// (not a partitioned one). pgbench 15 decides by --partitions alone,
// which fails on a partitioned table initialised earlier; newer pgbench
// looks at the table, as this does.
func (r *initRun) canFreeze() (bool, error) {
	if !r.pgDDL {
		return false, nil
	}
	const q = "select current_setting('server_version_num')::int >= 140000 and " +
		"(select relkind = 'r' from pg_catalog.pg_class where oid = 'pgbench_accounts'::regclass)"
	rows, err := r.c.Query(r.ctx, q)
	if err != nil {
		return false, queryError(q, err)
	}
	defer rows.Close()
	var ok *bool
	for rows.Next() {
		if err := rows.Scan(&ok); err != nil {
			return false, queryError(q, err)
		}
	}
	if err := rows.Err(); err != nil {
		return false, queryError(q, err)
	}
	return ok != nil && *ok, nil
}

// accountGen produces pgbench_accounts rows and pgbench's progress lines.
type accountGen struct {
	r           *initRun
	total, j    int64
	start       time.Time
	now         func() time.Time
	logInterval int
	filler      string
}

func (r *initRun) accounts() *accountGen {
	now := r.o.Now
	if now == nil {
		now = time.Now
	}
	g := &accountGen{r: r, total: int64(nAccounts) * int64(r.o.Scale), logInterval: 1, now: now, start: now()}
	if !r.pgDDL {
		// PostgreSQL pads the empty string to char(84); SQLite keeps
		// what it is given.
		g.filler = strings.Repeat(" ", 84)
	}
	return g
}

func (g *accountGen) next(row *target.CopyRow) (bool, error) {
	if g.j == g.total {
		return false, nil
	}
	k := g.j
	g.j++
	j := g.j
	row.Int(j)
	row.Int(k/nAccounts + 1)
	row.Int(0)
	row.Text(g.filler)
	if j%1000 == 0 {
		if err := g.r.ctx.Err(); err != nil {
			return false, err
		}
	}
	switch {
	case !g.r.o.Quiet && j%100000 == 0:
		g.progress(j, g.now().Sub(g.start).Seconds())
	case g.r.o.Quiet && j%100 == 0:
		el := g.now().Sub(g.start).Seconds()
		if j == g.total || el >= float64(g.logInterval*logStepSeconds) {
			g.progress(j, el)
			g.logInterval = int(math.Ceil(el / logStepSeconds))
		}
	}
	return true, nil
}

func (g *accountGen) progress(j int64, elapsed float64) {
	eol := "\n"
	if g.r.o.Terminal {
		eol = "\r"
	}
	remaining := float64(g.total-j) * elapsed / float64(j)
	g.r.printf("%d of %d tuples (%d%%) done (elapsed %.2f s, remaining %.2f s)%s",
		j, g.total, j*100/g.total, elapsed, remaining, eol)
}

// generateServerSide is pgbench's server-side generation with
// generate_series; on SQLite a recursive CTE stands in for it.
func (r *initRun) generateServerSide() error {
	r.printf("generating data (server-side)...\n")
	if err := r.begin(); err != nil {
		return err
	}
	if err := r.truncate(); err != nil {
		return err
	}
	s := int64(r.o.Scale)
	series := func(col string, n int64) string {
		return fmt.Sprintf("from generate_series(1, %d) as %s", n, col)
	}
	filler := "''"
	if !r.pgDDL {
		series = func(col string, n int64) string {
			return fmt.Sprintf("from (with recursive s(%[1]s) as (select 1 union all select %[1]s + 1 from s where %[1]s < %[2]d) select %[1]s from s)", col, n)
		}
		filler = "'" + strings.Repeat(" ", 84) + "'"
	}
	stmts := []string{
		"insert into pgbench_branches(bid,bbalance) select bid, 0 " + series("bid", nBranches*s),
		fmt.Sprintf("insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / %d + 1, 0 ", nTellers) + series("tid", nTellers*s),
		fmt.Sprintf("insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / %d + 1, 0, %s ", nAccounts, filler) + series("aid", nAccounts*s),
	}
	for _, q := range stmts {
		if err := r.exec(q); err != nil {
			return err
		}
	}
	return r.commit()
}

func (r *initRun) vacuum() error {
	r.printf("vacuuming...\n")
	for _, t := range []string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"} {
		q := "vacuum analyze " + t
		if !r.pgDDL {
			q = r.caps.AnalyzeSQL(t) // ANALYZE t, or ANALYZE TABLE t
		}
		if err := r.exec(q); err != nil {
			return err
		}
	}
	return nil
}

func (r *initRun) primaryKeys() error {
	r.printf("creating primary keys...\n")
	keys := [][2]string{{"pgbench_branches", "bid"}, {"pgbench_tellers", "tid"}, {"pgbench_accounts", "aid"}}
	for _, k := range keys {
		var q string
		if !r.pgDDL {
			// SQLite cannot add a primary key to a table; a unique index
			// named like PostgreSQL's does the same work.
			q = fmt.Sprintf("create unique index %s_pkey on %s (%s)", k[0], k[0], k[1])
		} else {
			q = fmt.Sprintf("alter table %s add primary key (%s)", k[0], k[1])
			if r.o.IndexTablespace != "" {
				q += " using index tablespace " + quoteIdent(r.o.IndexTablespace)
			}
		}
		if err := r.exec(q); err != nil {
			return err
		}
	}
	return nil
}

func (r *initRun) foreignKeys() error {
	r.printf("creating foreign keys...\n")
	for _, q := range []string{
		"alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
		"alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
	} {
		if err := r.exec(q); err != nil {
			return err
		}
	}
	return nil
}

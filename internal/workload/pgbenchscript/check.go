package pgbenchscript

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// balances are the sums the builtin scripts move: every tpcb-like
// transaction adds the same delta to one account, teller and branch and
// records it in the history; simple-update skips teller and branch.
type balances struct {
	accounts, tellers, branches, history, historyRows int64
}

func readBalances(ctx context.Context, c target.Conn) (balances, error) {
	var b balances
	rows, err := c.Query(ctx, `SELECT
		(SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts),
		(SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers),
		(SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches),
		(SELECT coalesce(sum(delta), 0) FROM pgbench_history),
		(SELECT count(*) FROM pgbench_history)`)
	if err != nil {
		return b, fmt.Errorf("reading the pgbench balances: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&b.accounts, &b.tellers, &b.branches, &b.history, &b.historyRows); err != nil {
			return b, fmt.Errorf("reading the pgbench balances: %w", err)
		}
	}
	return b, rows.Err()
}

// Check verifies, when every script is a builtin, that the balances moved
// together: what the accounts gained, the history recorded, and (with
// tpcb-like) the tellers and branches gained too. A transaction either
// committed whole or not at all, so this holds even for commits whose
// outcome the client never learnt. With YCSB's or sysbench's builtins
// their tables' rows are checked (checkExtras), and --check's queries
// run (checkUser). Custom scripts' effects are otherwise unknown:
// without --check nothing is checked, and the check says so (NotChecked).
func (w *Workload) Check(ctx context.Context, c target.Conn) (result.Check, error) {
	var ch result.Check
	if err := w.checkExtras(ctx, c, &ch); err != nil {
		return ch, err
	}
	if err := w.checkUser(ctx, c, &ch); err != nil {
		return ch, err
	}
	if w.before == nil {
		if len(ch.Items) == 0 {
			ch.NotChecked = "custom scripts"
		}
		return ch, nil
	}
	now, err := readBalances(ctx, c)
	if err != nil {
		return ch, err
	}
	d := balances{
		accounts: now.accounts - w.before.accounts, tellers: now.tellers - w.before.tellers,
		branches: now.branches - w.before.branches, history: now.history - w.before.history,
		historyRows: now.historyRows - w.before.historyRows,
	}
	ch.Add("accounts match history", d.accounts == d.history,
		"accounts changed by %d, the %d new history rows record %d", d.accounts, d.historyRows, d.history)
	tpcb, simple := false, false
	for _, s := range w.scripts {
		tpcb = tpcb || OpName(s) == "tpcb-like"
		simple = simple || OpName(s) == "simple-update"
	}
	if tpcb {
		// simple-update moves accounts alone, so only without it must the
		// tellers' and branches' change equal the accounts'.
		ch.Add("tellers and branches match", d.tellers == d.branches && (simple || d.tellers == d.accounts),
			"tellers changed by %d, branches by %d, accounts by %d", d.tellers, d.branches, d.accounts)
	}
	return ch, nil
}

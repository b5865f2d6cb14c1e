package anomalies

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/txnbench/txnbench/internal/history"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// Check merges the clients' Logs into the run's history, saves it where
// asked, checks it and holds the findings to what the engine promises at
// the run's level: each class it rules out is a failed item (exit 3);
// the rest are reported as allowed.
func (w *Workload) Check(ctx context.Context, c target.Conn) (result.Check, error) {
	var ch result.Check
	defer w.clear(ctx, c)
	switch {
	case !w.record:
		ch.NotChecked = "--record=false: no history was recorded"
		return ch, nil
	case w.level == target.DefaultIsolation:
		ch.NotChecked = "the server did not say its isolation level: give --isolation to hold the history to one"
		return ch, nil
	}
	w.mu.Lock()
	var logs []*history.Log
	for _, l := range w.logs {
		if l != nil {
			logs = append(logs, l)
		}
	}
	w.mu.Unlock()
	h := history.Merge(w.model, logs...)
	a, err := Verdict(h, w.engine, string(w.level))
	if err != nil {
		return ch, err
	}
	if w.historyFile != "" {
		if err := writeFile(w.historyFile, func(f io.Writer) error { return history.Save(f, h) }); err != nil {
			return ch, err
		}
		a.History = w.historyFile
	}
	if w.ednFile != "" {
		if err := writeFile(w.ednFile, func(f io.Writer) error { return history.WriteEDN(f, h) }); err != nil {
			return ch, err
		}
		a.EDN = w.ednFile
	}
	ch = Judge(a)
	ch.UnknownCommits = w.unknown.Load()
	return ch, nil
}

// clear deletes the run's rows once its history is taken, so the table
// holds no more than the runs still running: at most clearWait, and
// without failing the check, which needs no database (a server frozen
// or gone leaves the rows to the next --reinit).
func (w *Workload) clear(ctx context.Context, c target.Conn) {
	ctx, cancel := context.WithTimeout(ctx, clearWait)
	defer cancel()
	c.Exec(ctx, w.sql.clear, w.base, w.base+runKeys)
}

// clearWait bounds clear.
const clearWait = 2 * time.Second

// Verdict checks h and holds what it finds to what engine promises at
// its level named (--isolation's spelling): the anomalies of a report.
func Verdict(h *history.History, engine, named string) (*result.Anomalies, error) {
	p, err := history.Promise(engine, named)
	if err != nil {
		return nil, fmt.Errorf("checking the history: %w", err)
	}
	res := history.Check(h, history.Options{})
	a := &result.Anomalies{Transactions: res.Txns, Level: named, Promise: history.PromiseText(engine, named, p)}
	for _, f := range res.Anomalies {
		a.Found = append(a.Found, result.Anomaly{Class: string(f.Class), Count: f.Count, Violation: p.Proscribes(f.Class), Example: f.Example})
	}
	return a, nil
}

// Judge is the check of a verdict: one item, failed when a class found is
// one the level rules out.
func Judge(a *result.Anomalies) result.Check {
	ch := result.Check{Anomalies: a}
	if v := a.Violations(); v > 0 {
		ch.Add("isolation kept", false, "%s: %d class(es) found that it rules out", a.Promise, v)
	} else {
		ch.Add("isolation kept", true, "nothing %s rules out, in %d transactions", a.Promise, a.Transactions)
	}
	return ch
}

// writeFile writes path whole or not at all: a file beside it, renamed
// over it once written.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".txnbench-history-*")
	if err != nil {
		return fmt.Errorf("saving the history: %w", err)
	}
	defer os.Remove(f.Name())
	b := bufio.NewWriterSize(f, 1<<20)
	err = write(b)
	if err == nil {
		err = b.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("saving the history to %s: %w", path, err)
	}
	return nil
}

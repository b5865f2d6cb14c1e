package report

import (
	"fmt"
	"io"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// PgbenchRun is what pgbench's report shows that a Result does not hold:
// how the run was asked for, in pgbench's terms.
type PgbenchRun struct {
	Scripts          []PgbenchScript
	Scale            int
	Mode             string // simple, extended or prepared
	Threads          int
	MaxTries         int
	Unlimited        bool  // --max-tries 0: pgbench prints no maximum
	DurationS        int   // -T; 0 with -t
	PerClient        int64 // -t
	Connect          bool  // -C: a new connection per transaction
	FailuresDetailed bool
	PerCommand       bool    // -r
	Rate             float64 // -R, transactions per second
	LatencyLimitMS   float64 // -L
	Progress         bool    // -P (pgbench then prints the stddev)
	// Retried counts transactions retried at least once, overall and per
	// script (the Result counts retries, not retried transactions).
	Retried       int64
	ScriptRetried []int64
	// Strict prints only pgbench's lines, as pgbench prints them: no
	// percentiles, and NaN for a percentage of nothing.
	Strict bool
}

// PgbenchScript is one script as pgbench names it.
type PgbenchScript struct {
	Name   string // "<builtin: TPC-B (sort of)>" or the file name
	Op     string // the script's op in the Result
	Weight int
	// Commands are the first lines of its commands, for -r.
	Commands []string
}

// Pgbench writes the report pgbench prints after a run, line for line in
// its format, followed by the latency percentiles pgbench lacks.
func Pgbench(w io.Writer, r *result.Result, p PgbenchRun) {
	cycle := r.Op(result.CycleOp)
	if cycle == nil {
		cycle = &result.Op{Hist: metrics.NewHist()}
	}
	var failed, serial, deadlock, retries int64
	for _, o := range r.Ops {
		if o.Kind.IsTxn() {
			failed += failures(o)
			serial += o.Errors["serialization"]
			deadlock += o.Errors["deadlock"]
			retries += o.Retries // the scripts' ops count them, not the cycle's
		}
	}
	pct := percent(p.Strict)
	processed := cycle.Count
	total := processed + failed + cycle.Skipped
	if len(p.Scripts) == 1 {
		fmt.Fprintf(w, "transaction type: %s\n", p.Scripts[0].Name)
	} else {
		fmt.Fprintln(w, "transaction type: multiple scripts")
	}
	fmt.Fprintf(w, "scaling factor: %d\n", p.Scale)
	fmt.Fprintf(w, "query mode: %s\n", p.Mode)
	fmt.Fprintf(w, "number of clients: %d\n", r.Config.Clients)
	fmt.Fprintf(w, "number of threads: %d\n", p.Threads)
	if !p.Unlimited {
		fmt.Fprintf(w, "maximum number of tries: %d\n", p.MaxTries)
	}
	if p.DurationS > 0 {
		fmt.Fprintf(w, "duration: %d s\n", p.DurationS)
		fmt.Fprintf(w, "number of transactions actually processed: %d\n", processed)
	} else {
		fmt.Fprintf(w, "number of transactions per client: %d\n", p.PerClient)
		fmt.Fprintf(w, "number of transactions actually processed: %d/%d\n", processed, p.PerClient*int64(r.Config.Clients))
	}
	counts(w, "", p, total, failed, serial, deadlock, p.Retried, retries)
	if processed+cycle.Skipped == 0 {
		return // pgbench stops here: nothing ran to report on
	}
	skipped(w, "", p, cycle.Skipped, total)
	if p.LatencyLimitMS > 0 {
		fmt.Fprintf(w, "number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)\n",
			p.LatencyLimitMS, cycle.Late, processed, pct(cycle.Late, processed))
	}
	if p.Rate > 0 || p.LatencyLimitMS > 0 || p.Progress {
		fmt.Fprintf(w, "latency average = %.3f ms\n", cycle.Mean)
		fmt.Fprintf(w, "latency stddev = %.3f ms\n", cycle.Hist.StdDev())
	} else {
		// pgbench measures no latencies then: it prints the run time per
		// transaction and client (with -C including the connections); the
		// percentiles below are the measured ones.
		avg := fmt.Sprintf("latency average = %.3f ms", 1000*r.MeasuredS*float64(r.Config.Clients)/float64(max(total, 1)))
		if failed > 0 {
			avg += " (including failures)"
		}
		fmt.Fprintln(w, avg)
	}
	if lag := r.Op(result.LagOp); lag != nil && p.Rate > 0 {
		fmt.Fprintf(w, "rate limit schedule lag: avg %.3f (max %.3f) ms\n", lag.Mean, lag.Max)
	}
	tps := 0.0
	if r.MeasuredS > 0 {
		tps = float64(processed) / r.MeasuredS
	}
	connect := 0.0
	for _, o := range r.Ops {
		if o.Kind == result.KindWait {
			connect = o.Mean
		}
	}
	if p.Connect {
		fmt.Fprintf(w, "average connection time = %.3f ms\n", connect)
		fmt.Fprintf(w, "tps = %f (including reconnection times)\n", tps)
	} else {
		fmt.Fprintf(w, "initial connection time = %.3f ms\n", connect)
		fmt.Fprintf(w, "tps = %f (without initial connection time)\n", tps)
	}
	if !p.Strict {
		fmt.Fprintf(w, "latency percentiles: p50 = %.3f ms, p90 = %.3f ms, p95 = %.3f ms, p99 = %.3f ms, max = %.3f ms\n",
			cycle.P50, cycle.P90, cycle.P95, cycle.P99, cycle.Max)
	}

	if len(p.Scripts) == 1 {
		if p.PerCommand {
			commands(w, "", r, p.Scripts[0], p.MaxTries)
		}
		return
	}
	scriptReports(w, r, p, processed)
}

// scriptReports writes the report of each of several scripts, as pgbench
// does after the run's: its weight, transactions, failures, latency and
// (with --report-per-command) its commands.
func scriptReports(w io.Writer, r *result.Result, p PgbenchRun, processed int64) {
	pct := percent(p.Strict)
	var weights int
	for _, s := range p.Scripts {
		weights += s.Weight
	}
	for i, s := range p.Scripts {
		o := r.Op(s.Op)
		if o == nil {
			o = &result.Op{Hist: metrics.NewHist()}
		}
		fmt.Fprintf(w, "SQL script %d: %s\n", i+1, s.Name)
		fmt.Fprintf(w, " - weight: %d (targets %.1f%% of total)\n", s.Weight, 100*float64(s.Weight)/float64(weights))
		stps := 0.0
		if r.MeasuredS > 0 {
			stps = float64(o.Count) / r.MeasuredS
		}
		fmt.Fprintf(w, " - %d transactions (%.1f%% of total, tps = %f)\n", o.Count, 100*float64(o.Count)/float64(max(processed, 1)), stps)
		var retried int64
		if i < len(p.ScriptRetried) {
			retried = p.ScriptRetried[i]
		}
		counts(w, " - ", p, o.Count+failures(*o)+o.Skipped, failures(*o), o.Errors["serialization"], o.Errors["deadlock"], retried, o.Retries)
		skipped(w, " - ", p, o.Skipped, o.Count+failures(*o)+o.Skipped)
		if p.LatencyLimitMS > 0 {
			fmt.Fprintf(w, " - number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)\n",
				p.LatencyLimitMS, o.Late, o.Count, pct(o.Late, o.Count))
		}
		if o.Count > 0 { // pgbench has no latencies of a script that never ran
			fmt.Fprintf(w, " - latency average = %.3f ms\n", o.Mean)
			fmt.Fprintf(w, " - latency stddev = %.3f ms\n", o.Hist.StdDev())
		}
		if p.PerCommand {
			commands(w, " - ", r, s, p.MaxTries)
		}
	}
}

// counts writes the failed and retried lines of the whole run or of one
// script.
func counts(w io.Writer, prefix string, p PgbenchRun, total, failed, serial, deadlock, retried, retries int64) {
	pct := percent(p.Strict)
	fmt.Fprintf(w, "%snumber of failed transactions: %d (%.3f%%)\n", prefix, failed, pct(failed, total))
	if p.FailuresDetailed {
		fmt.Fprintf(w, "%snumber of serialization failures: %d (%.3f%%)\n", prefix, serial, pct(serial, total))
		fmt.Fprintf(w, "%snumber of deadlock failures: %d (%.3f%%)\n", prefix, deadlock, pct(deadlock, total))
	}
	if p.MaxTries != 1 {
		fmt.Fprintf(w, "%snumber of transactions retried: %d (%.3f%%)\n", prefix, retried, pct(retried, total))
		fmt.Fprintf(w, "%stotal number of retries: %d\n", prefix, retries)
	}
}

// skipped writes the line of transactions skipped for the latency limit.
func skipped(w io.Writer, prefix string, p PgbenchRun, skipped, total int64) {
	if p.Rate > 0 && p.LatencyLimitMS > 0 {
		fmt.Fprintf(w, "%snumber of transactions skipped: %d (%.3f%%)\n", prefix, skipped, percent(p.Strict)(skipped, total))
	}
}

// commands writes one script's per-command latencies (-r).
func commands(w io.Writer, prefix string, r *result.Result, s PgbenchScript, maxTries int) {
	if maxTries == 1 {
		fmt.Fprintf(w, "%sstatement latencies in milliseconds and failures:\n", prefix)
	} else {
		fmt.Fprintf(w, "%sstatement latencies in milliseconds, failures and retries:\n", prefix)
	}
	for i, first := range s.Commands {
		o := r.Op(result.StatementName(s.Op, i, first))
		if o == nil {
			o = &result.Op{}
		}
		line := fmt.Sprintf("   %11.3f  %10d", o.Mean, o.ErrorCount())
		if maxTries != 1 {
			line += fmt.Sprintf("  %10d", o.Retries)
		}
		fmt.Fprintf(w, "%s  %s\n", line, first)
	}
}

// failures are the op's transactions that failed after their tries:
// those of retryable classes. pgbench aborts the client on any other error,
// and does not count it as a failed transaction.
func failures(o result.Op) int64 {
	var n int64
	for class, v := range o.Errors {
		if errclass.Class(class).Retryable() {
			n += v
		}
	}
	return n
}

// percent returns what writes n as a percentage of of: 0 when of is 0,
// or NaN as pgbench prints it when strict.
func percent(strict bool) func(n, of int64) float64 {
	return func(n, of int64) float64 {
		if of == 0 && !strict {
			return 0
		}
		return 100 * float64(n) / float64(of)
	}
}

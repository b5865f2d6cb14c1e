package report

import (
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/result"
)

// Summary writes everything a finished run shows: what ran where, the
// per-op table, errors by class, client CPU and the invariant check.
func Summary(w io.Writer, r *result.Result) {
	Header(w, r)
	fmt.Fprintln(w)
	Table(w, r)
	Figures(w, r)
	Window(w, r)
	Faults(w, r)
	SlowOps(w, r)
	Errors(w, r)
	Outcomes(w, r)
	Client(w, r)
	Telemetry(w, r)
	Limit(w, r)
	Invariants(w, r)
}

// Limit prints what bound the run, as the result stored it: "limited by:
// ..." (nothing for a result without it, made before it was kept).
func Limit(w io.Writer, r *result.Result) {
	if r.LimitedBy != nil {
		fmt.Fprintln(w, "\nlimited by: "+r.LimitedBy.String())
	}
}

// Header says what ran, against what, how.
func Header(w io.Writer, r *result.Result) {
	fmt.Fprintf(w, "workload   %s (%s)\n", r.Workload, settingsLine(r.Settings))
	if len(r.Data) > 0 {
		fmt.Fprintf(w, "data       %s\n", dataLine(r.Data))
	}
	fmt.Fprintf(w, "database   %s %s  %s\n", r.Server.Dialect, r.Server.Version, r.Config.DB)
	if r.Config.Topology != "" {
		fmt.Fprintf(w, "replicas   %s\n", r.Config.Topology)
	}
	for _, l := range r.Replication {
		fmt.Fprintf(w, "standby    %s\n", l)
	}
	if r.Network != nil {
		fmt.Fprintf(w, "network    %s\n", r.Network)
		if warn := r.Network.Warning(r.MeasuredS); warn != "" {
			fmt.Fprintf(w, "WARNING    %s\n", warn)
		}
	}
	if r.TLS != nil {
		fmt.Fprintf(w, "tls        %s\n", r.TLS)
	}
	run := runLine(r)
	if r.Interrupted {
		run += ", INTERRUPTED"
	}
	fmt.Fprintf(w, "run        %s\n", run)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note       %s\n", n)
	}
	for _, l := range shardLines(r) {
		fmt.Fprintf(w, "shard      %s\n", l)
	}
}

func settingsLine(s map[string]any) string { return keyValues(s) }

// dataLine is what a run found in the database.
func dataLine(d map[string]int64) string { return keyValues(d) }

// keyValues is m as key=value pairs sorted by key.
func keyValues[V any](m map[string]V) string {
	keys := sortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, m[k])
	}
	return strings.Join(parts, " ")
}

// Table writes the per-op table: the cycle first, then the ops.
func Table(w io.Writer, r *result.Result) {
	rows := [][]string{{"elapsed", "op", "clients", "ops", "ops/s", "mean(ms)", "p50(ms)", "p90(ms)", "p95(ms)", "p99(ms)", "max(ms)", "retries", "errors"}}
	server := hasServerTimes(r)
	if server {
		// The server's execution time per op execution, beside the
		// client's latency (pg_stat_statements).
		rows[0] = append(rows[0][:6], append([]string{"server(ms)"}, rows[0][6:]...)...)
	}
	elapsed := strconv.FormatFloat(r.MeasuredS, 'f', 0, 64)
	for o := range orderedOps(r) {
		rate := 0.0
		if r.MeasuredS > 0 {
			rate = float64(o.Count) / r.MeasuredS
		}
		row := append([]string{elapsed, firstLine(o.Name, 48), strconv.Itoa(o.Clients), thousands(o.Count), fixed(rate, 1)}, opLatencies(o)...)
		row = append(row, thousands(o.Retries), thousands(o.ErrorCount()))
		if server {
			st := "-"
			if o.ServerMS > 0 {
				st = ms(o.ServerMS)
			}
			row = append(row[:6], append([]string{st}, row[6:]...)...)
		}
		rows = append(rows, row)
	}
	texttable.Write(w, texttable.Plain, rows, 1)
}

// orderedOps yields r's ops with the cycle first, like dbworkload's
// table, in place: a script's 45 ops copied were 100 KB a table (issue
// 40: a run's end).
func orderedOps(r *result.Result) iter.Seq[*result.Op] {
	return func(yield func(*result.Op) bool) {
		if c := r.Op(result.CycleOp); c != nil && !yield(c) {
			return
		}
		for i := range r.Ops {
			if o := &r.Ops[i]; o.Name != result.CycleOp && !yield(o) {
				return
			}
		}
	}
}

// Errors lists errors by class per op, when there were any.
func Errors(w io.Writer, r *result.Result) {
	rows := [][]string{{"op", "class", "errors", "first error"}}
	for o := range orderedOps(r) {
		classes := sortedKeys(o.Errors)
		for _, c := range classes {
			rows = append(rows, []string{o.Name, c, thousands(o.Errors[c]), firstLine(o.ErrorSamples[c], 100)})
		}
	}
	if len(rows) == 1 {
		return
	}
	fmt.Fprintln(w, "\nerrors by class")
	texttable.Write(w, texttable.Plain, rows, 0, 1, 3)
}

// Outcomes says how many transactions succeeded when some failed, and
// what the shared pool saw.
func Outcomes(w io.Writer, r *result.Result) {
	if ok, failed := r.Transactions(); failed > 0 {
		fmt.Fprintf(w, "\ntransactions %s succeeded, %s failed: %.2f%% success\n",
			thousands(ok), thousands(failed), 100*float64(ok)/float64(ok+failed))
	}
	if c := r.Op(result.CycleOp); c != nil && (r.Config.Rate > 0 || r.Config.LatencyLimit != "") {
		line := "\nschedule  "
		if r.Config.Rate > 0 {
			line += fmt.Sprintf(" rate %s/s", fixed(r.Config.Rate, 1))
			if lag := r.Op(result.LagOp); lag != nil {
				line += fmt.Sprintf(", lag behind it mean %s ms, p99 %s ms, max %s ms", ms(lag.Mean), ms(lag.P99), ms(lag.Max))
			}
		}
		if r.Config.LatencyLimit != "" {
			line += fmt.Sprintf("; %s cycles late (over %s), %s skipped", thousands(c.Late), r.Config.LatencyLimit, thousands(c.Skipped))
		}
		fmt.Fprintln(w, line)
	}
	if r.AbortedClients > 0 {
		fmt.Fprintf(w, "\n%d clients aborted on an error that ends a client (see errors by class)\n", r.AbortedClients)
	}
	if p := r.Pooler; p != nil {
		fmt.Fprintln(w, "\npooler     "+poolerLine(p))
		fleetLines(w, p)
	}
	if p := r.Pool; p != nil {
		fmt.Fprintf(w, "\npool       %d connections, %s acquires, %s waited or connected, %.2f s waiting in all, %s connections opened\n",
			p.MaxConns, thousands(p.Acquires), thousands(p.EmptyAcquires), p.WaitS, thousands(p.NewConns))
	}
}

// poolerLine describes what a pooler did in one line.
func poolerLine(p *result.Pooler) string {
	line := p.Name
	if p.Detail != "" {
		line += " (" + p.Detail + ")"
	}
	if p.Stats != nil {
		line += fmt.Sprintf(": %s transactions, %s queries, %s in queries, clients waited %s in all",
			thousands(p.Stats["total_xact_count"]), thousands(p.Stats["total_query_count"]),
			microsText(p.Stats["total_query_time"]), microsText(p.Stats["total_wait_time"]))
	}
	if p.Note != "" {
		line += "; " + p.Note
	}
	return line
}

// microsText is a duration in microseconds (as PgBouncer counts) in ms
// below a second, in s from there.
func microsText(us int64) string {
	if us < 1e6 {
		return ms(float64(us)/1e3) + " ms"
	}
	return fixed(float64(us)/1e6, 2) + " s"
}

// Client reports txnbench's own cost.
func Client(w io.Writer, r *result.Result) {
	c := r.Client
	line := fmt.Sprintf("\nclient     cpu %.2f s user + %.2f s sys", c.CPUUserS, c.CPUSysS)
	if r.MeasuredS > 0 {
		line += fmt.Sprintf(" (%.0f%% of one core)", 100*(c.CPUUserS+c.CPUSysS)/r.MeasuredS)
	}
	if c.CPUPerCycleMS > 0 {
		line += fmt.Sprintf(", %.3f ms per cycle", c.CPUPerCycleMS)
	}
	if c.AllocPerTxnKB > 0 {
		line += fmt.Sprintf(", %.1f KB allocated per transaction", c.AllocPerTxnKB)
	}
	line += fmt.Sprintf(", peak memory %.0f MB", c.MaxRSSMB)
	if r.Server.Embedded {
		line += "\n           (the database is embedded: this includes the engine's own work)"
	}
	if p := r.Network.ProxyCPU(r.MeasuredS); p != "" {
		line += "\n           " + p
	}
	fmt.Fprintln(w, line)
}

// Figures prints the workload's own figures of the run, one a line.
func Figures(w io.Writer, r *result.Result) {
	for _, f := range r.Figures {
		fmt.Fprintln(w, f)
	}
}

// Invariants prints the check, ending with "invariants: OK",
// "invariants: VIOLATED" or "invariants: not checked (REASON)".
func Invariants(w io.Writer, r *result.Result) {
	ch := r.Invariants
	if ch == nil {
		fmt.Fprintln(w, "invariants: not checked")
		return
	}
	for _, it := range ch.Items {
		mark := "ok  "
		if !it.OK {
			mark = "FAIL"
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %s %-32s %s", mark, it.Name, it.Detail), " "))
	}
	if ch.UnknownCommits > 0 {
		fmt.Fprintf(w, "  commits with unknown outcome: %d\n", ch.UnknownCommits)
	}
	Anomalies(w, ch.Anomalies)
	if l := r.LostAtFailover(); l != nil {
		fmt.Fprintln(w, "lost at failover: "+l.String())
	}
	for _, l := range []string{r.ReadRouting.ServedLine(), r.ReadRouting.StaleLine()} {
		if l != "" {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintln(w, "invariants: "+ch.Status())
}

// firstLine is the first line of s, cut to width characters.
func firstLine(s string, width int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > width {
		s = string(r[:width-3]) + "..."
	}
	return s
}

// ProgressLine is one line per interval: throughput and latency per op.
func ProgressLine(iv result.Interval) string {
	intervalS := max(iv.LengthS, 1e-9)
	var b strings.Builder
	b.WriteString(intervalLabel(iv))
	var errs, retries int64
	ops := iv.Ops
	// the cycle first
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Name == result.CycleOp {
			ops = append([]result.IntervalOp{ops[i]}, append(append([]result.IntervalOp{}, ops[:i]...), ops[i+1:]...)...)
			break
		}
	}
	for _, o := range ops {
		errs += o.Errors
		retries += o.Retries
		p50, p99 := latencies(o.Count, o.P50, o.P99)
		fmt.Fprintf(&b, " | %s %s/s p50 %s p99 %s", o.Name, fixed(float64(o.Count)/intervalS, 1), p50, p99)
	}
	fmt.Fprintf(&b, " | retries %d errors %d", retries, errs)
	return b.String()
}

// ms, fixed and thousands are texttable's formats, the one number
// format of every table.
func ms(v float64) string { return texttable.MS(v) }

func fixed(v float64, prec int) string { return texttable.Fixed(v, prec) }

func thousands(n int64) string { return texttable.Count(n) }

// opLatencies are an op's mean, p50, p90, p95, p99 and max as ms, "-"
// each when no latency was measured.
func opLatencies(o *result.Op) []string {
	if o.Count+o.AfterWindow == 0 {
		return []string{texttable.None, texttable.None, texttable.None, texttable.None, texttable.None, texttable.None}
	}
	return []string{ms(o.Mean), ms(o.P50), ms(o.P90), ms(o.P95), ms(o.P99), ms(o.Max)}
}

// latencies are an op's p50 and p99 as ms, "-" when nothing completed.
func latencies(count int64, p50, p99 float64) (string, string) {
	if count == 0 {
		return texttable.None, texttable.None
	}
	return ms(p50), ms(p99)
}

package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/txnbench/txnbench/internal/result"
)

// hasServerTimes reports whether any op has a server time to show.
func hasServerTimes(r *result.Result) bool {
	for _, o := range r.Ops {
		if o.ServerMS > 0 {
			return true
		}
	}
	return false
}

// Telemetry writes the telemetry summary: client vs server time per op,
// the database's counters, the top waits, lock waits, the pooler's
// counters, the client's and machine's CPU, and what could not be
// collected. Nothing without telemetry.
func Telemetry(w io.Writer, r *result.Result) {
	t := r.Telemetry
	if t == nil {
		return
	}
	fmt.Fprintln(w)
	if hasServerTimes(r) {
		var parts []string
		for _, o := range r.Ops {
			if o.ServerMS > 0 && o.Mean > 0 {
				parts = append(parts, fmt.Sprintf("%s %s of %s ms (%s)", o.Name, ms(o.ServerMS), ms(o.Mean), serverShare(o)))
			}
		}
		line("server", "time per op on the server (pg_stat_statements) of its mean latency: "+strings.Join(parts, ", "), w)
	}
	if d := t.Database; d != nil {
		c, _ := r.ServerCommits()
		line("database", fmt.Sprintf("%s, rollbacks %s; tuples inserted %s, updated %s, deleted %s, fetched %s, returned %s",
			"commits "+CommitsText(c), thousands(d["xact_rollback"]), thousands(d["tup_inserted"]), thousands(d["tup_updated"]),
			thousands(d["tup_deleted"]), thousands(d["tup_fetched"]), thousands(d["tup_returned"])), w)
		buf := "buffers: no reads or hits"
		if hit, read := d["blks_hit"], d["blks_read"]; hit+read > 0 {
			buf = fmt.Sprintf("buffer hit ratio %.2f%% (%s hits, %s reads)", 100*float64(hit)/float64(hit+read), thousands(hit), thousands(read))
		}
		wal := ""
		if v, ok := d["wal_bytes"]; ok {
			wal = ", WAL " + bytesText(v)
		}
		line("", fmt.Sprintf("%s%s; deadlocks %s, temp files %s (%s), conflicts %s",
			buf, wal, thousands(d["deadlocks"]), thousands(d["temp_files"]), bytesText(d["temp_bytes"]), thousands(d["conflicts"])), w)
	}
	if wt := t.Waits; wt != nil {
		head := fmt.Sprintf("%s samples of sessions in a transaction in %s snapshots every %g ms", thousands(wt.ActiveSamples), thousands(wt.Samples), wt.SampleEveryMS)
		if len(wt.Classes) > 0 {
			head += ": " + shareList(wt.Classes, 5)
		}
		line("waits", head, w)
		if len(wt.Events) > 0 {
			line("", "top events: "+shareList(wt.Events, 10), w)
		}
		line("locks", fmt.Sprintf("%s samples waiting on a lock, at most %d waiting at once", thousands(wt.LockWaitSamples), wt.MaxLockWaiters), w)
	}
	if p := t.Pooler; p != nil && r.Pooler == nil { // with r.Pooler, its line says it
		keys := sortedKeys(p)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			v := thousands(p[k])
			if strings.HasSuffix(k, "_time") {
				v = microsText(p[k])
			}
			parts = append(parts, fmt.Sprintf("%s %s", strings.TrimPrefix(k, "total_"), v))
		}
		line("pooler", "SHOW STATS over the window: "+strings.Join(parts, ", "), w)
	}
	if len(t.Series) > 0 {
		var cpu, cpuMax, mach, machMax, rss float64
		for _, s := range t.Series {
			cpu += s.ClientCPU
			mach += s.MachineCPU
			cpuMax = max(cpuMax, s.ClientCPU)
			machMax = max(machMax, s.MachineCPU)
			rss = max(rss, s.ClientRSSMB)
		}
		n := float64(len(t.Series))
		line("machine", fmt.Sprintf("txnbench %.2f cores on average (%.2f at most), %.0f MB resident at most; machine CPU %.0f%% busy on average (%.0f%% at most), %d intervals",
			cpu/n, cpuMax, rss, 100*mach/n, 100*machMax, len(t.Series)), w)
	}
	for _, n := range t.Notes {
		line("note", n, w)
	}
}

// serverShare is an op's server time as a share of its mean latency. The
// two cover the same executions, so a share above 100% has a cause,
// which it names: the server's mean is over every execution, the
// latency's over the completed ones.
func serverShare(o result.Op) string {
	share := fmt.Sprintf("%.0f%%", 100*o.ServerMS/o.Mean)
	if o.ServerMS <= o.Mean {
		return share
	}
	var why []string
	if n := o.Retries + o.ErrorCount(); n > 0 {
		why = append(why, fmt.Sprintf("%s retried or failed executions", thousands(n)))
	}
	if o.Unfinished > 0 {
		why = append(why, fmt.Sprintf("%s cut short", thousands(o.Unfinished)))
	}
	if o.BeforeWindow > 0 {
		why = append(why, fmt.Sprintf("%s begun in the warm-up", thousands(o.BeforeWindow)))
	}
	if len(why) == 0 {
		return share + ", above its latency: the server timed more than its executions"
	}
	return share + ", above its latency: the server's mean includes " + strings.Join(why, ", ") + ", the latency only completed ones"
}

// line writes one labelled line of the telemetry summary.
func line(label, text string, w io.Writer) {
	fmt.Fprintf(w, "%-10s %s\n", label, text)
}

// shareList is "name 12.3%, ..." for the first n shares.
func shareList(ss []result.WaitShare, n int) string {
	parts := make([]string, 0, n)
	for i, s := range ss {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.1f%%", s.Name, 100*s.Share))
	}
	return strings.Join(parts, ", ")
}

// bytesText is a byte count in the largest unit that keeps it above 1.
func bytesText(n int64) string {
	v := float64(n)
	for _, u := range []string{"B", "KB", "MB", "GB"} {
		if v < 1024 || u == "GB" {
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return fmt.Sprintf("%.1f %s", v, u)
		}
		v /= 1024
	}
	return ""
}

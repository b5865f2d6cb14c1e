package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/result"
)

// SlowOps writes, under the per-op table, the slowest run of each op and
// what its server session was doing meanwhile: "slowest add: 63.0 s,
// waiting on LWLock:BufferContent 58.0 s, CPU 4.1 s (backend 1234, client
// 3)". The other slow ops kept are in the JSON and HTML reports. Nothing
// when the result has none.
func SlowOps(w io.Writer, r *result.Result) {
	if len(r.SlowOps) == 0 {
		return
	}
	fmt.Fprintln(w)
	shown := map[string]bool{}
	label := "slowest"
	for op := range orderedOps(r) {
		for _, o := range r.SlowOps {
			if o.Op != op.Name || shown[o.Op] {
				continue
			}
			shown[o.Op] = true
			text := fmt.Sprintf("%s: %s", o.Op, seconds(o.LatencyMS))
			if why := slowWhy(o); why != "" {
				text += ", " + why
			}
			line(label, text+" ("+slowWhere(o)+")", w)
			label = ""
		}
	}
	if n := len(r.SlowOps) - len(shown); n > 0 {
		line(label, fmt.Sprintf("%d more slow op runs (the 5 slowest of each op, and those over its p99.9) in the JSON and HTML reports", n), w)
	}
}

// slowWhy is what a slow op's session was doing: "waiting on
// Lock:transactionid 2.5 s, CPU 0.3 s", or why that is unknown; "" on an
// engine without sessions.
func slowWhy(o result.SlowOp) string {
	if len(o.Waits) == 0 {
		return o.Note
	}
	parts := make([]string, len(o.Waits))
	for i, wt := range o.Waits {
		parts[i] = wt.Event + " " + seconds(wt.MS)
	}
	return "waiting on " + strings.Join(parts, ", ")
}

// slowWhere names a slow op's session and client.
func slowWhere(o result.SlowOp) string {
	switch {
	case o.BackendPID != 0:
		return fmt.Sprintf("backend %d, client %d", o.BackendPID, o.Client)
	case o.Backend != "":
		return fmt.Sprintf("%s, client %d", o.Backend, o.Client)
	}
	return "client " + strconv.Itoa(o.Client)
}

// seconds shows a duration in milliseconds as "838 ms" or "63.0 s".
func seconds(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.1f s", ms/1000)
}

// slowOpsTable is the HTML report's table of the slow ops; nil without.
// The backend and session columns are there only when some op has one,
// and the note on sampling only when the wait sampler (PostgreSQL's, from
// pg_stat_activity) saw the ops: an engine without sessions (SQLite), or
// one txnbench does not sample (MariaDB, MySQL), gets neither.
func slowOpsTable(r *result.Result) []table {
	if len(r.SlowOps) == 0 {
		return nil
	}
	var backends, whys, sampled bool
	for _, o := range r.SlowOps {
		backends = backends || o.BackendPID != 0 || o.Backend != ""
		whys = whys || slowWhy(o) != ""
		sampled = sampled || o.Samples > 0 || len(o.Waits) > 0
	}
	t := table{Title: "slowest ops (the 5 slowest of each op, and those over its p99.9)",
		Columns: []string{"op", "latency (ms)", "started", "client"},
		Left:    map[int]bool{2: true}, Wrap: map[int]bool{}}
	if backends {
		t.Left[len(t.Columns)] = true
		t.Columns = append(t.Columns, "backend")
	}
	if whys {
		t.Left[len(t.Columns)], t.Wrap[len(t.Columns)] = true, true
		t.Columns = append(t.Columns, "what its session was doing")
	}
	if sampled {
		t.Note = "Sampled from pg_stat_activity: each sample of the session stands for one sampling interval. " +
			"CPU is active and not waiting; Client:ClientRead (idle in transaction) is the client's own think time inside a transaction, (idle) its time between transactions."
	}
	for _, o := range r.SlowOps {
		row := []string{o.Op, ms(o.LatencyMS), o.Start.Format("15:04:05.000"), strconv.Itoa(o.Client)}
		if backends {
			backend := o.Backend
			if o.BackendPID != 0 {
				backend = strconv.FormatUint(uint64(o.BackendPID), 10)
			}
			row = append(row, backend)
		}
		if whys {
			row = append(row, slowWhy(o))
		}
		t.Rows = append(t.Rows, row)
	}
	return []table{t}
}

package result

import "fmt"

// Telemetry is what txnbench saw beside the clients during the measured
// window: the database's own counters, what its sessions waited on, the
// server time of each statement, a pooler's counters, and the cost of the
// client and the machine. Anything that could not be collected is left out
// and explained in Notes.
type Telemetry struct {
	// Database is the change of the run database's counters over the
	// window, named as PostgreSQL names them: xact_commit, xact_rollback,
	// blks_hit, blks_read, tup_inserted, tup_updated, tup_deleted,
	// tup_fetched, tup_returned, deadlocks, temp_files, temp_bytes,
	// conflicts (pg_stat_database), wal_bytes (the WAL position) and
	// autovacuum (how many times autovacuum and autoanalyze processed the
	// database's tables: pg_stat_all_tables' autovacuum_count and
	// autoanalyze_count).
	Database map[string]int64 `json:"database,omitempty"`
	// Waits summarises pg_stat_activity sampled during the window.
	Waits *Waits `json:"waits,omitempty"`
	// Statements is the server execution time of each statement the
	// clients ran (pg_stat_statements, change over the window), slowest in
	// total first.
	Statements []Statement `json:"statements,omitempty"`
	// Pooler is the change of a pooler's SHOW STATS totals over the window.
	Pooler map[string]int64 `json:"pooler,omitempty"`
	// Series has one sample per progress interval, aligned with
	// Result.Intervals (same ElapsedS).
	Series []Sample `json:"series,omitempty"`
	// Notes says what was not collected and why, e.g. "pg_stat_statements
	// is not installed in database x: ...".
	Notes []string `json:"notes,omitempty"`
}

// Waits is a sample of the run's sessions in a transaction: every
// SampleEveryMS, each client backend of the run's database that was
// active counts once, under its wait_event_type ("CPU" when active and
// not waiting), as Oracle's ASH and pg_wait_sampling count, and each one
// idle in a transaction under Client:ClientRead (waiting for its client
// while holding the transaction open). Sessions idle between transactions
// are not counted.
type Waits struct {
	SampleEveryMS float64 `json:"sample_every_ms"`
	Samples       int64   `json:"samples"`        // snapshots of pg_stat_activity taken
	ActiveSamples int64   `json:"active_samples"` // backends in a transaction summed over the snapshots
	// Classes are the wait classes (wait_event_type, or CPU) by their share
	// of ActiveSamples, largest first; Events the same per
	// "type:event" (e.g. "Lock:transactionid"), the top ones only.
	Classes []WaitShare `json:"classes"`
	Events  []WaitShare `json:"events"`
	// LockWaitSamples is how many backend samples waited on a heavyweight
	// lock (wait_event_type Lock); MaxLockWaiters the most seen at once.
	LockWaitSamples int64 `json:"lock_wait_samples"`
	MaxLockWaiters  int   `json:"max_lock_waiters"`
}

// WaitShare is one wait class or event and its share of active samples.
type WaitShare struct {
	Name    string  `json:"name"`
	Samples int64   `json:"samples"`
	Share   float64 `json:"share"` // of ActiveSamples, 0..1
}

// Statement is one statement's server-side execution over the window.
type Statement struct {
	// Op is the op whose SQL carries this statement (see workload.OpTag),
	// "" when no op could be told.
	Op      string  `json:"op,omitempty"`
	Query   string  `json:"query"`
	Calls   int64   `json:"calls"`
	Rows    int64   `json:"rows"`
	TotalMS float64 `json:"total_ms"` // total_exec_time
	MeanMS  float64 `json:"mean_ms"`
}

// Sample is the telemetry of one progress interval: counter changes within
// it and the client's and machine's use of CPU.
type Sample struct {
	ElapsedS float64 `json:"elapsed_s"`
	// Database and Pooler are counter changes within the interval (the
	// same names as Telemetry.Database and Telemetry.Pooler).
	Database map[string]int64 `json:"database,omitempty"`
	Pooler   map[string]int64 `json:"pooler,omitempty"`
	// SpanS is the time in seconds Database covers: from the previous
	// reading of the server's counters to this one, which is not the
	// interval's length when a reading was late or missed, and for the
	// last sample runs on to the final reading, after the clients were
	// gone (what completed after the window is in it). A rate is Database
	// over SpanS; 0 in results from before it was kept.
	SpanS float64 `json:"span_s,omitempty"`
	// Waits counts active backend samples per wait class in the interval.
	Waits map[string]int64 `json:"waits,omitempty"`
	// ClientCPU is txnbench's CPU use in cores (1 = one core busy);
	// ClientRSSMB its resident memory at the interval's end; MachineCPU
	// the whole machine's busy share of all its CPUs, 0..1 (/proc/stat).
	ClientCPU   float64 `json:"client_cpu"`
	ClientRSSMB float64 `json:"client_rss_mb"`
	MachineCPU  float64 `json:"machine_cpu"`
	// Gap says what this sample lacks or covers beyond its interval when
	// the telemetry session was lost, the server's statistics were reset
	// or the pooler restarted ("" when whole); Telemetry.Notes says more.
	Gap string `json:"gap,omitempty"`
}

// SetServerTimes sets each transaction op's ServerMS from the statements
// tagged with its name: their total execution time between the window's
// first reading and its last over the op's executions in that time
// (Op.Executions: those completed after the window too, whose time the
// last reading holds). An execution is an attempt: a success, a retry or
// a final failure each ran the op's statements (as far as they got). Ops
// without tagged statements keep 0.
func (r *Result) SetServerTimes() {
	if r.Telemetry == nil {
		return
	}
	total := map[string]float64{}
	for _, st := range r.Telemetry.Statements {
		if st.Op != "" {
			total[st.Op] += st.TotalMS
		}
	}
	for i := range r.Ops {
		o := &r.Ops[i]
		o.ServerMS = 0
		ms, ok := total[o.Name]
		if !o.Kind.IsTxn() || !ok {
			continue
		}
		if n := o.Executions(); n > 0 {
			o.ServerMS = ms / float64(n)
		}
	}
}

// mergeTelemetry is the telemetry of results merged by Merge: the
// database's counters, waits and statements cover the whole database, so
// every run's sampler saw the same thing and adding them would count it
// several times; the first run's telemetry is kept, with a note. Its
// client and machine series are that run's machine only, and its pooler
// counters that run's pooler only.
func mergeTelemetry(rs []*Result) *Telemetry {
	for _, r := range rs {
		if r.Telemetry == nil {
			continue
		}
		t := *r.Telemetry
		t.Notes = append(append([]string{}, t.Notes...), fmt.Sprintf(
			"merged from %d results: database counters, waits and statements are one run's view of the whole database (not added up); the series' client and machine CPU and the pooler's counters are that run's only", len(rs)))
		return &t
	}
	return nil
}

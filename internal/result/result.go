package result

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
)

// Format identifies the document so a future reader can tell versions apart.
const Format = "txnbench-result/1"

// CycleOp is the name of the pseudo-op timing a whole cycle.
const CycleOp = "cycle"

// LagOp is the name of the pseudo-op timing how late cycles started
// against their schedule, with a rate.
const LagOp = "lag"

// Kind is what an op's row measures: a transaction, or one of the rows
// the runner adds around the workload's ops.
type Kind string

// The kinds of rows: a transaction (one of the workload's ops), the whole
// cycle, the time clients spent getting a connection (connecting, or
// waiting for a pool), and with a rate the lag behind the schedule.
const (
	KindTxn   Kind = "txn"
	KindCycle Kind = "cycle"
	KindWait  Kind = "wait"
	KindLag   Kind = "lag"
	// KindStatement is one command of a script (pgbench -r): a part of a
	// transaction, not one.
	KindStatement Kind = "statement"
	// KindPhase is a timed phase of a workload's op that may span
	// goroutines (from a signal to its completion, say).
	KindPhase Kind = "phase"
)

// IsTxn reports whether k is a transaction's kind. The zero Kind is one:
// results have always written a transaction without a kind, and Load
// reads it back as KindTxn.
func (k Kind) IsTxn() bool { return k == KindTxn || k == "" }

// Label is k as reports and metrics name it: "transaction" for a
// transaction, the kind itself otherwise.
func (k Kind) Label() string {
	if k.IsTxn() {
		return "transaction"
	}
	return string(k)
}

// IsZero reports whether JSON omits k (omitzero): a transaction's kind, so
// saved results read as they always have.
func (k Kind) IsZero() bool { return k.IsTxn() }

// StatementName names the row of command cmd (from 0) of a script op,
// whose first line is first.
func StatementName(op string, cmd int, first string) string {
	return fmt.Sprintf("%s/%d %s", op, cmd+1, strings.TrimSpace(first))
}

// Result is everything one run (or several merged runs) measured.
type Result struct {
	Format   string         `json:"format"`
	Tool     Tool           `json:"txnbench"`
	Workload string         `json:"workload"`
	Settings map[string]any `json:"settings"`
	// Data is what the workload found in the database as the run started
	// (rows by table, or pgbench's scale); Settings say what it was made with.
	Data        map[string]int64 `json:"data,omitempty"`
	Config      Config           `json:"config"`
	Server      Server           `json:"server"`
	Machine     Machine          `json:"machine"`
	Started     time.Time        `json:"started"`
	Ended       time.Time        `json:"ended"`
	MeasuredS   float64          `json:"measured_s"` // the window rates are computed over
	Interrupted bool             `json:"interrupted,omitempty"`
	// Stalled says no op completed in the window's last StallAfter or more.
	Stalled *Stall `json:"stalled,omitempty"`
	// WorkloadCommits is how many transactions the workload's sessions
	// committed beside its ops, which no op records (workload.Unrecorder:
	// the workflow's await looking again, its signal workers releasing
	// their leases), from the window's start until they were gone.
	WorkloadCommits int64 `json:"workload_commits,omitempty"`
	// Notifications is how many notifications the workload's LISTEN
	// session received over the same span (workload.Unrecorder): the
	// server reads them in transactions of its own, up to one each, which
	// no op records.
	Notifications int64 `json:"notifications,omitempty"`
	// CycleUnit names what one cycle is when the workload's users count
	// cycles rather than transactions ("workflows"); "" otherwise.
	CycleUnit string `json:"cycle_unit,omitempty"`
	// Behind says the --rate schedule fell behind (ScheduleBehind).
	Behind *Behind `json:"behind_schedule,omitempty"`
	// AbortedClients stopped early on an error that ends a client (a
	// script's runtime error; any error with pgbench's semantics).
	AbortedClients int        `json:"aborted_clients,omitempty"`
	Ops            []Op       `json:"ops"`
	Intervals      []Interval `json:"intervals"`
	Invariants     *Check     `json:"invariants,omitempty"`
	// Pool is what the shared pool saw (acquires, waits), with --conn pool.
	Pool *PoolStats `json:"pool,omitempty"`
	// Pooler is what a pooler between clients and server did, with --via.
	Pooler *Pooler `json:"pooler,omitempty"`
	// Network is the network txnbench made between the clients and what
	// they connect to (--network); nil without one.
	Network *Network `json:"network,omitempty"`
	// TLS is the TLS the clients' connections used; nil without TLS.
	TLS *TLS `json:"tls,omitempty"`
	// Telemetry is the database's, pooler's and machine's side of the run;
	// nil with --telemetry off.
	Telemetry *Telemetry `json:"telemetry,omitempty"`
	Client    Client     `json:"client"`
	Sources   int        `json:"sources,omitempty"` // results merged into this one; 0 = a single run

	// SlowOps are the run's slowest ops and what their sessions waited on.
	SlowOps []SlowOp `json:"slow_ops,omitempty"`
	// Notes say how the workload fitted itself to the database (what it
	// left out or did differently); they describe the run and set nothing.
	Notes []string `json:"notes,omitempty"`
	// Figures are the workload's own figures of the run (TPC-C's tpmC),
	// computed from this result when it was made.
	Figures []string `json:"figures,omitempty"`
	// Faults are the faults on the run's timeline, injected or found.
	Faults []Fault `json:"faults,omitempty"`
	// Replication is each standby's lag over the run (temp-postgres
	// --replicas, with telemetry on).
	Replication []StandbyLag `json:"replication,omitempty"`
	// ReadRouting is what --read-from replicas or any did (readrouting.go).
	ReadRouting *ReadRouting `json:"read_routing,omitempty"`
	// Shards are the parts of a run split across processes: this one's,
	// or every merged one's.
	Shards []Shard `json:"shards,omitempty"`
	// CPU is the CPU of the run's parts and of the machine over the
	// window; nil where it could not be read.
	CPU *CPUUse `json:"cpu,omitempty"`
	// LimitedBy is what bound the run (DecideLimit), decided once as the
	// result was made; every report prints it.
	LimitedBy *Limit `json:"limited_by,omitempty"`
}

// Network is a network txnbench's proxy made between two parts of the
// run, and the round trip measured through it.
type Network struct {
	// Shape is what was asked: rtt=2ms[,jitter=...][,rate=...][,loss=...];
	// RTTMs its round trip, in ms.
	Shape string  `json:"shape"`
	RTTMs float64 `json:"rtt_ms"`
	// MeasuredRTTMs is the fastest of a few trivial queries through the
	// same path before the run, on an idle session, server and pooler
	// time included, in ms.
	MeasuredRTTMs float64 `json:"measured_rtt_ms"`
	// WindowRTTMs is the median of trivial queries sent through the same
	// path during the measured window, one every RTTProbeEvery on a
	// session of their own, under the run's load (WindowRTTProbes of
	// them); 0 when none completed.
	WindowRTTMs     float64 `json:"window_rtt_ms,omitempty"`
	WindowRTTProbes int     `json:"window_rtt_probes,omitempty"`
	// PoolerShape and PoolerMeasuredRTTMs are the same between the
	// pooler and the server (--pooler-network), the queries sent to the
	// server directly through it.
	PoolerShape         string  `json:"pooler_shape,omitempty"`
	PoolerMeasuredRTTMs float64 `json:"pooler_measured_rtt_ms,omitempty"`
	// ProxyCPUS is the CPU time the proxies making the network used in
	// the measured window, in s: they run inside txnbench, and this is
	// not in Client's CPU.
	ProxyCPUS float64 `json:"proxy_cpu_s,omitempty"`
	// ProxyHeldMs is how long the proxy held what it forwarded, by its own
	// clock, over the window: its mean one-way hold of a chunk, twice (the
	// round trip it added, its own lateness included), in ms; 0 when it
	// forwarded nothing.
	ProxyHeldMs float64 `json:"proxy_held_ms,omitempty"`
	// PoolerHeldMs is the same of the proxy between the pooler and the
	// server (--pooler-network).
	PoolerHeldMs float64 `json:"pooler_held_ms,omitempty"`
}

// RTTProbeEvery is how often a trivial query measures the round trip
// through a shaped network during the window.
const RTTProbeEvery = 100 * time.Millisecond

// RTTOff is how far the round trip measured during the window may be from
// what was asked (more than the idle path's own, or less than asked)
// before the report warns.
const RTTOff = 0.2

// ProxyCPU says what the network's proxies cost in CPU over a window of
// measuredS seconds, apart from the client's: "" when nothing was counted.
func (n *Network) ProxyCPU(measuredS float64) string {
	if n == nil || n.ProxyCPUS <= 0 {
		return ""
	}
	return "network proxy CPU " + n.proxyCores(measuredS) + ", in txnbench's process but not the client's: taken off its figures"
}

// proxyCores is the proxies' CPU: "0.52 s (5% of one core)".
func (n *Network) proxyCores(measuredS float64) string {
	out := fmt.Sprintf("%.2f s", n.ProxyCPUS)
	if measuredS > 0 {
		out += fmt.Sprintf(" (%.0f%% of one core)", 100*n.ProxyCPUS/measuredS)
	}
	return out
}

// Warning says the round trip measured during the window was more than
// RTTOff off what was asked: above the asked round trip (or the idle
// path's own, when that is more) by more than RTTOff, or below it; ""
// when it was not, or was not measured.
func (n *Network) Warning(measuredS float64) string {
	if n == nil || n.Shape == "" || n.WindowRTTMs <= 0 {
		return ""
	}
	want := max(n.RTTMs, n.MeasuredRTTMs)
	if n.WindowRTTMs <= want*(1+RTTOff) && n.WindowRTTMs >= n.RTTMs*(1-RTTOff) {
		return ""
	}
	out := fmt.Sprintf("the round trip during the run was %.2f ms, not the %s asked (%.2f ms on the idle path before it)", n.WindowRTTMs, n.Shape, n.MeasuredRTTMs)
	if n.ProxyCPUS > 0 {
		out += "; the proxy used " + n.proxyCores(measuredS)
	}
	return out
}

// RTT is the round trips as a study's table cell shows them: asked,
// measured during the window, the proxy's CPU ("1 / 45.2 ms, proxy 52%").
func (n *Network) RTT(measuredS float64) string {
	if n == nil || n.Shape == "" {
		return ""
	}
	out := trimMS(n.RTTMs)
	if n.WindowRTTMs > 0 {
		out += " / " + trimMS(n.WindowRTTMs)
	}
	out += " ms"
	if n.ProxyCPUS > 0 && measuredS > 0 {
		out += fmt.Sprintf(", proxy %.0f%% of a core", 100*n.ProxyCPUS/measuredS)
	}
	if n.Warning(measuredS) != "" {
		out += " (off)"
	}
	return out
}

// TLS is what a client's connection to the server (or to the pooler in
// front of it) negotiated, and how the client checked the certificate.
type TLS struct {
	Version string `json:"version"`          // e.g. "TLS 1.3"
	Cipher  string `json:"cipher,omitempty"` // e.g. "TLS_AES_128_GCM_SHA256"
	// Verify is how the client checked the server: its sslmode, and
	// what it verified against (e.g. "verify-full against the run's CA").
	Verify string `json:"verify,omitempty"`
}

// String is the TLS as the report shows it.
func (t *TLS) String() string {
	out := t.Version
	if t.Cipher != "" {
		out += " " + t.Cipher
	}
	if t.Verify != "" {
		out += ", " + t.Verify
	}
	return out
}

// String is the network as the report shows it.
func (n *Network) String() string {
	var parts []string
	if n.Shape != "" {
		p := fmt.Sprintf("%s, measured rtt %.2f ms", n.Shape, n.MeasuredRTTMs)
		if n.WindowRTTMs > 0 {
			p += fmt.Sprintf(" idle, %.2f ms during the run (median of %d)", n.WindowRTTMs, n.WindowRTTProbes)
		}
		if n.ProxyHeldMs > 0 {
			p += fmt.Sprintf(", the proxy held %.2f ms by its clock", n.ProxyHeldMs)
		}
		parts = append(parts, p)
	}
	if n.PoolerShape != "" {
		p := fmt.Sprintf("pooler to server %s, measured rtt %.2f ms", n.PoolerShape, n.PoolerMeasuredRTTMs)
		if n.PoolerHeldMs > 0 {
			p += fmt.Sprintf(", the proxy held %.2f ms by its clock", n.PoolerHeldMs)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// Tool is the txnbench build that produced the result.
type Tool struct {
	Version string `json:"version"`
	Go      string `json:"go"`
}

// Config is the run's configuration as given, with passwords masked.
type Config struct {
	DB string `json:"db"`
	// Database is what sort of database DB is, as diff compares it
	// (target.Spec.Form): "sqlite", "temp-postgres", "temp-mariadb",
	// "server". See DatabaseKind for results written before it.
	Database string `json:"database,omitempty"`
	// Topology is what temp-postgres --replicas started: "primary and 2
	// standbys, sync ..."; "" for one server.
	Topology   string `json:"topology,omitempty"`
	Clients    int    `json:"clients"`
	Duration   string `json:"duration,omitempty"`
	Iterations int64  `json:"iterations,omitempty"`
	Ramp       string `json:"ramp,omitempty"`
	Warmup     string `json:"warmup,omitempty"`
	Seed       uint64 `json:"seed"`
	MaxTries   int    `json:"max_tries"`
	// Rate is the target cycles per second (0: as fast as possible);
	// latency counts from each cycle's scheduled start.
	Rate         float64 `json:"rate,omitempty"`
	LatencyLimit string  `json:"latency_limit,omitempty"`
	Conn         string  `json:"conn"`          // session, per-txn or pool
	Via          string  `json:"via,omitempty"` // direct, pgbouncer or a pooler\'s URL (masked)
	// Isolation is the level the transactions ran at (read-committed,
	// repeatable-read, serializable, read-uncommitted); IsolationDefault
	// says it was the server's default, read from it (no --isolation).
	Isolation        string `json:"isolation,omitempty"`
	IsolationDefault bool   `json:"isolation_default,omitempty"`
	// Pool is the shared pool's configuration when Conn is pool.
	Pool   *PoolConfig `json:"pool,omitempty"`
	PGConf []string    `json:"pg_conf,omitempty"`
	Args   []string    `json:"args"`
}

// IsolationText is a level as a run's header says it: serializable, or
// read-committed (the database's default: the server's, or SQLite's).
func IsolationText(level string, byDefault bool) string {
	if byDefault {
		return level + " (the database's default)"
	}
	return level
}

// Server is the database that was measured.
type Server struct {
	Dialect string `json:"dialect"`
	Version string `json:"version"`
	Banner  string `json:"banner"`
	// Embedded: the engine ran inside txnbench, so client CPU includes it.
	Embedded bool `json:"embedded,omitempty"`
}

// Machine is where txnbench ran.
type Machine struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"`
}

// Op is the statistics of one op over the measured window.
type Op struct {
	Name    string           `json:"name"`
	Kind    Kind             `json:"kind,omitzero"`
	Clients int              `json:"clients"`
	Retries int64            `json:"retries"`
	Errors  map[string]int64 `json:"errors,omitempty"` // by error class
	// Late finished after the latency limit; Skipped never started, being
	// already that late at their scheduled start (with a rate).
	Late    int64 `json:"late,omitempty"`
	Skipped int64 `json:"skipped,omitempty"`
	// ErrorSamples holds the first message of each error class.
	ErrorSamples map[string]string `json:"error_samples,omitempty"`
	// ServerMS is the server's execution time per execution of the op: its
	// statements' time in pg_stat_statements over the op's count; 0 when
	// unknown. Latency minus it is the network, the client and think time.
	ServerMS float64 `json:"server_ms,omitempty"`
	// AfterWindow ops started in the window and completed in the grace
	// period after it, or completed before its end in a cycle that ended
	// after it (an op is recorded with its cycle, so that no interval
	// splits them): their latencies are in the statistics and the
	// histogram, but not in Count, which (like every rate) counts only ops
	// completed inside the window.
	AfterWindow int64 `json:"after_window,omitempty"`
	// AfterWindowRetries and AfterWindowErrors (by class) are the retries
	// and failures of the window's ops that came in the grace period after
	// it: not in Retries and Errors, which (like the intervals) count only
	// what happened inside the window.
	AfterWindowRetries int64            `json:"after_window_retries,omitempty"`
	AfterWindowErrors  map[string]int64 `json:"after_window_errors,omitempty"`
	// BeforeWindow ops belong to cycles begun before the window (in the
	// warm-up) and completed inside it: they are in no statistic, but the
	// server's counters, which start with the window, count them.
	BeforeWindow int64 `json:"before_window,omitempty"`
	// Unfinished ops started in the window and were still running when the
	// run ended (cancelled after the grace period, or interrupted); they
	// are in no statistic. UnfinishedMaxMS is the longest any of them had
	// run: a lower bound of the worst latency.
	Unfinished      int64   `json:"unfinished,omitempty"`
	UnfinishedMaxMS float64 `json:"unfinished_max_ms,omitempty"`
	metrics.Summary
	Hist *metrics.Hist `json:"histogram"`
}

// StallAfter is how long no op may complete before the end of the window
// for the run to count as stalled.
const StallAfter = 5 * time.Second

// Stall is a run whose last completed op was StallAfter or more before the
// window ended.
type Stall struct {
	Clients int     `json:"clients"` // clients in an op when the window ended
	SinceS  float64 `json:"since_s"` // when the last op completed, in the window
}

// ErrorCount is the op's errors of all classes.
func (o Op) ErrorCount() int64 {
	var n int64
	for _, v := range o.Errors {
		n += v
	}
	return n
}

// Executions is how often the op ran on the server between the window's
// first reading and its last (after the clients were gone): every
// attempt, completed in the window or after it, retried, failed or cut
// short, and those of cycles begun before the window that completed in it.
func (o Op) Executions() int64 {
	return o.Count + o.AfterWindow + o.BeforeWindow + o.Retries + o.ErrorCount() + o.Unfinished
}

// Committed is the transactions the clients committed while the
// server's counters ran: those completed in the window, after it (in the
// grace period) and before it (begun in the warm-up, completed in the
// window). Each transaction op is one transaction.
func (r *Result) Committed() (window, after, before int64) {
	for _, o := range r.Ops {
		if o.Kind.IsTxn() {
			window += o.Count
			after += o.AfterWindow
			before += o.BeforeWindow
		}
	}
	return window, after, before
}

// Commits is the server's commits over a run beside the clients'
// transactions they cover: the server's counters run from the window's
// start until the clients are gone, so they hold the transactions
// completed in the window, after it (in the grace period) and those begun
// in the warm-up that completed in it (Result.Committed). The run report
// and the study's database table both show it, through Text.
type Commits struct {
	Server int64 `json:"server"`
	Window int64 `json:"window"`
	After  int64 `json:"after,omitempty"`
	Before int64 `json:"before,omitempty"`
	// Workload is Result.WorkloadCommits: the workload's own, one commit
	// each.
	Workload int64 `json:"workload,omitempty"`
	// Notified is Result.Notifications: the server's reading of them may
	// add up to as many commits.
	Notified int64 `json:"notified,omitempty"`
	// Probes is Network.WindowRTTProbes: the round trip's trivial queries
	// during the window, one commit each.
	Probes int64 `json:"probes,omitempty"`
	// Autovacuum is how many times autovacuum and autoanalyze processed
	// the database's tables over the same span (Telemetry.Database's
	// autovacuum): each adds commits of its own.
	Autovacuum int64 `json:"autovacuum,omitempty"`
	// Statements: the server counts COMMIT statements, not transactions
	// (MariaDB's and MySQL's Com_commit: an autocommitted statement is
	// none), so the two are not compared.
	Statements bool `json:"commit_statements,omitempty"`
	// Standbys are the commits the standbys counted over the run
	// (ReadRouting): the read-only transactions --read-from sent there.
	Standbys int64 `json:"standbys,omitempty"`
}

// ServerCommits is the commits the server counted over the run
// (Telemetry.Database's xact_commit) beside the run's transactions; false
// without database telemetry.
func (r *Result) ServerCommits() (Commits, bool) {
	if r.Telemetry == nil {
		return Commits{}, false
	}
	server, ok := r.Telemetry.Database["xact_commit"]
	if !ok {
		return Commits{}, false
	}
	window, after, before := r.Committed()
	var probes int64
	if r.Network != nil {
		probes = int64(r.Network.WindowRTTProbes)
	}
	return Commits{Server: server, Window: window, After: after, Before: before, Workload: r.WorkloadCommits, Probes: probes,
		Notified: r.Notifications, Autovacuum: r.Telemetry.Database["autovacuum"],
		Statements: r.Server.Dialect == "MariaDB" || r.Server.Dialect == "MySQL", Standbys: r.ReadRouting.Commits()}, true
}

// MedianCommits is the commits among cs with the median Server (the
// lower middle one of an even number), whole, so that its parts add up;
// nil when cs is empty.
func MedianCommits(cs []Commits) *Commits {
	if len(cs) == 0 {
		return nil
	}
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b Commits) int { return cmp.Compare(a.Server, b.Server) })
	return &cs[(len(cs)-1)/2]
}

// Add adds o's counts to c's (a suite's study scenario sums its cells').
func (c *Commits) Add(o Commits) {
	c.Server, c.Window, c.After, c.Before = c.Server+o.Server, c.Window+o.Window, c.After+o.After, c.Before+o.Before
	c.Workload, c.Notified, c.Autovacuum, c.Probes = c.Workload+o.Workload, c.Notified+o.Notified, c.Autovacuum+o.Autovacuum, c.Probes+o.Probes
}

// Clients is the transactions the clients committed while the server's
// counters ran.
func (c Commits) Clients() int64 { return c.Window + c.After + c.Before }

// Interval is one progress interval.
type Interval struct {
	ElapsedS float64      `json:"elapsed_s"` // since the measured window began, at the interval's end
	LengthS  float64      `json:"length_s"`
	Ops      []IntervalOp `json:"ops"`
}

// IntervalOp is one op's statistics within an interval.
type IntervalOp struct {
	Name string `json:"name"`
	// Kind is the op's, as in the result's ops: the runner sets it, Load
	// takes it from the op of the same name (intervals do not save it).
	Kind    Kind  `json:"-"`
	Retries int64 `json:"retries,omitempty"`
	Errors  int64 `json:"errors,omitempty"`
	// ErrorClasses splits Errors by class.
	ErrorClasses map[string]int64 `json:"error_classes,omitempty"`
	Skipped      int64            `json:"skipped,omitempty"`
	metrics.Summary
	// Hist is the interval's histogram. A long run has many intervals, so
	// once the interval closes it is kept at rest (metrics.Hist.Compact)
	// and saved encoded as it rests.
	Hist *metrics.Hist `json:"histogram"`
}

// Client is what txnbench itself used, so a reader can see it was not the
// bottleneck.
type Client struct {
	CPUUserS float64 `json:"cpu_user_s"`
	CPUSysS  float64 `json:"cpu_sys_s"`
	MaxRSSMB float64 `json:"max_rss_mb"`
	// CPUPerCycleMS is client CPU per completed cycle in the window.
	CPUPerCycleMS float64 `json:"cpu_per_cycle_ms,omitempty"`
	// AllocPerTxnKB is heap allocated by the client per transaction.
	AllocPerTxnKB float64 `json:"alloc_per_txn_kb,omitempty"`
}

// Pooler is a connection pooler's view of the run: the change of its
// counters (PgBouncer's SHOW STATS total_*: transactions, queries, bytes,
// times in microseconds) and its pools at the end (SHOW POOLS).
type Pooler struct {
	Name   string              `json:"name"`
	Detail string              `json:"detail,omitempty"`
	Stats  map[string]int64    `json:"stats,omitempty"`
	Pools  []map[string]string `json:"pools,omitempty"`
	Note   string              `json:"note,omitempty"`
	// Members and Proxy are a fleet's (--poolers N): Stats above are
	// the sum of the members'.
	Members []PoolerMember `json:"members,omitempty"`
	Proxy   *Proxy         `json:"proxy,omitempty"`
}

// Op returns the named op's statistics, or nil.
func (r *Result) Op(name string) *Op {
	for i := range r.Ops {
		if r.Ops[i].Name == name {
			return &r.Ops[i]
		}
	}
	return nil
}

// Save writes r as indented JSON to path, atomically: a reader never sees
// a half-written file.
func (r *Result) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the result: %w", err)
	}
	err = WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("saving the result to %s: %w", path, err)
	}
	return nil
}

// Load reads a result saved by Save.
func Load(path string) (*Result, error) {
	b, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not a txnbench result: %w", path, err)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("%s is not a txnbench result (format %q, want %q)", path, r.Format, Format)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.setKinds()
	r.moveNotes()
	return &r, nil
}

// moveNotes moves notes saved among the settings (files written before
// Notes was a field) into Notes, so old files render as they did.
func (r *Result) moveNotes() {
	ns, ok := r.Settings["notes"].([]any)
	if !ok {
		return
	}
	for _, n := range ns {
		r.Notes = append(r.Notes, fmt.Sprint(n))
	}
	delete(r.Settings, "notes")
}

// setKinds makes every kind explicit after loading: an op saved without
// one is a transaction, and an interval's op has the kind of the op of the
// same name; the n-th of several ops of one name (a phase named like an
// op) has the kind of the n-th, as intervals list ops in the ops' order.
func (r *Result) setKinds() {
	kinds := make(map[string][]Kind, len(r.Ops))
	for i := range r.Ops {
		if r.Ops[i].Kind.IsTxn() {
			r.Ops[i].Kind = KindTxn
		}
		kinds[r.Ops[i].Name] = append(kinds[r.Ops[i].Name], r.Ops[i].Kind)
	}
	for _, iv := range r.Intervals {
		seen := map[string]int{}
		for i := range iv.Ops {
			name := iv.Ops[i].Name
			iv.Ops[i].Kind = KindTxn
			if ks := kinds[name]; seen[name] < len(ks) {
				iv.Ops[i].Kind = ks[seen[name]]
			}
			seen[name]++
		}
	}
}

// Merge combines results of the same workload that ran at the same time
// (several machines driving one database) into one: histograms merge
// exactly, counts add up, the measured window is the longest, telemetry is
// the first run's (see mergeTelemetry) and server times per op are taken
// over the merged executions. Results that
// did not overlap in time are refused: adding their throughputs would
// describe a load that never happened. So are results that are not parts
// of one run (see Comparable), and one part given twice (see SamePart).
func Merge(rs []*Result) (*Result, error) {
	if len(rs) == 0 {
		return nil, errors.New("nothing to merge")
	}
	if len(rs) == 1 {
		return rs[0], nil
	}
	if err := Comparable(rs); err != nil {
		return nil, err
	}
	if err := samePart(rs); err != nil {
		return nil, err
	}
	if err := sameRun(rs); err != nil {
		return nil, err
	}
	if err := overlap(rs); err != nil {
		return nil, err
	}
	sameIntervals := true
	for _, r := range rs {
		if len(r.Intervals) > 0 && len(rs[0].Intervals) > 0 && math.Abs(r.Intervals[0].LengthS-rs[0].Intervals[0].LengthS) > 0.5 {
			sameIntervals = false
		}
	}
	shifts := intervalShifts(rs, sameIntervals) // lines the intervals up by wall time
	m := *rs[0]
	m.Ops = nil
	m.Intervals = nil
	m.Invariants = nil
	m.Sources = 0
	m.Client = Client{}
	m.Pool = nil
	m.Pooler = nil // each run's pooler counted only its own clients
	m.Config.Clients = 0
	m.AbortedClients = 0
	m.WorkloadCommits = 0
	var cpu float64
	for k, r := range rs {
		m.Sources += max(r.Sources, 1)
		m.Config.Clients += r.Config.Clients
		m.MeasuredS = max(m.MeasuredS, r.MeasuredS)
		if r.Started.Before(m.Started) {
			m.Started = r.Started
		}
		if r.Ended.After(m.Ended) {
			m.Ended = r.Ended
		}
		m.Interrupted = m.Interrupted || r.Interrupted
		m.AbortedClients += r.AbortedClients
		m.WorkloadCommits += r.WorkloadCommits // each shard's sessions committed their own
		m.Client.CPUUserS += r.Client.CPUUserS
		m.Client.CPUSysS += r.Client.CPUSysS
		m.Client.MaxRSSMB = max(m.Client.MaxRSSMB, r.Client.MaxRSSMB)
		if r.Pool != nil {
			if m.Pool == nil {
				m.Pool = &PoolStats{}
			}
			m.Pool.add(r.Pool)
		}
		cpu += r.Client.CPUUserS + r.Client.CPUSysS
		for _, o := range r.Ops {
			mergeByName(&m.Ops, o)
		}
		if sameIntervals { // different progress intervals cannot be lined up
			m.mergeIntervals(r.Intervals, shifts[k])
		}
		if r.Invariants != nil {
			if m.Invariants == nil {
				m.Invariants = &Check{OK: true}
			}
			m.Invariants.Merge(*r.Invariants)
		}
	}
	if c := m.Op(CycleOp); c != nil && c.Count > 0 {
		m.Client.CPUPerCycleMS = cpu * 1000 / float64(c.Count)
	}
	for _, iv := range m.Intervals {
		for _, o := range iv.Ops {
			o.Hist.Compact() // at rest, as Load keeps them: cannot fail for merged histograms
		}
	}
	mergeShards(&m, rs)
	mergeFaults(&m, rs)
	m.Telemetry = mergeTelemetry(rs)
	m.SlowOps = mergeSlowOps(rs)
	m.SetServerTimes()
	m.Behind = ScheduleBehind(&m) // against the whole run's rate
	m.CPU = mergeCPU(rs)
	m.LimitedBy = DecideLimit(&m)
	return &m, nil
}

// overlap refuses results that did not run at the same time: adding their
// throughputs would describe a load that never happened.
func overlap(rs []*Result) error {
	for _, r := range rs[1:] {
		if r.Started.After(rs[0].Ended) || rs[0].Started.After(r.Ended) {
			return fmt.Errorf("the results did not run at the same time (%s and %s): merging is for concurrent runs; compare separate runs with txnbench study",
				rs[0].Started.Format(time.RFC3339), r.Started.Format(time.RFC3339))
		}
	}
	return nil
}

// add adds o's counts into p.
func (p *PoolStats) add(o *PoolStats) {
	p.MaxConns += o.MaxConns
	p.Acquires += o.Acquires
	p.EmptyAcquires += o.EmptyAcquires
	p.WaitS += o.WaitS
	p.NewConns += o.NewConns
	p.Destroyed += o.Destroyed
}

// mergeIntervals adds a part's intervals into m's, shift intervals later
// (the part started that many intervals after the first).
func (m *Result) mergeIntervals(ivs []Interval, shift int) {
	for i, iv := range ivs {
		i += shift
		for i >= len(m.Intervals) {
			m.Intervals = append(m.Intervals, Interval{})
		}
		if m.Intervals[i].LengthS == 0 {
			m.Intervals[i].ElapsedS = iv.ElapsedS + float64(shift)*iv.LengthS
			m.Intervals[i].LengthS = iv.LengthS
		}
		for _, o := range iv.Ops {
			mergeByName(&m.Intervals[i].Ops, o)
		}
	}
}

// mergeByName adds o into the op of *ops with o's name, appending an
// empty one first when there is none: the one way Merge combines the ops
// of a result and those of an interval.
func mergeByName[T any, P interface {
	*T
	name() string
	add(T)
}](ops *[]T, o T) {
	i := slices.IndexFunc(*ops, func(t T) bool { return P(&t).name() == P(&o).name() })
	if i < 0 {
		*ops = append(*ops, *new(T))
		i = len(*ops) - 1
	}
	P(&(*ops)[i]).add(o)
}

// addCounts returns counts with more's added, allocating it when needed:
// merging never writes into a source's map.
func addCounts(counts, more map[string]int64) map[string]int64 {
	for k, v := range more {
		if counts == nil {
			counts = make(map[string]int64, len(more))
		}
		counts[k] += v
	}
	return counts
}

// mergedHist returns h with o's samples added (a new histogram when h is
// nil: merging never writes into a source's histogram) and its summary.
func mergedHist(h, o *metrics.Hist) (*metrics.Hist, metrics.Summary) {
	if h == nil {
		h = metrics.NewHist()
	}
	h.Merge(o)
	return h, h.Summary()
}

func (t *Op) name() string { return t.Name + "\x00" + t.Kind.Label() }

// add adds the statistics of o, an op of the same name, to t.
func (t *Op) add(o Op) {
	t.Name, t.Kind = o.Name, o.Kind
	t.AfterWindow += o.AfterWindow
	t.BeforeWindow += o.BeforeWindow
	t.Hist, t.Summary = mergedHist(t.Hist, o.Hist)
	t.Count -= t.AfterWindow // the histogram holds them, the count does not
	t.Clients += o.Clients
	t.Retries += o.Retries
	t.AfterWindowRetries += o.AfterWindowRetries
	t.AfterWindowErrors = addCounts(t.AfterWindowErrors, o.AfterWindowErrors)
	t.Late += o.Late
	t.Skipped += o.Skipped
	t.Unfinished += o.Unfinished
	t.UnfinishedMaxMS = max(t.UnfinishedMaxMS, o.UnfinishedMaxMS)
	t.Errors = addCounts(t.Errors, o.Errors)
	for k, v := range o.ErrorSamples {
		if t.ErrorSamples == nil {
			t.ErrorSamples = map[string]string{}
		}
		if _, ok := t.ErrorSamples[k]; !ok {
			t.ErrorSamples[k] = v
		}
	}
}

func (t *IntervalOp) name() string { return t.Name + "\x00" + t.Kind.Label() }

// add adds the statistics of o, the same op in the same interval of
// another run, to t.
func (t *IntervalOp) add(o IntervalOp) {
	t.Name, t.Kind = o.Name, o.Kind
	t.Hist, t.Summary = mergedHist(t.Hist, o.Hist)
	t.Retries += o.Retries
	t.Errors += o.Errors
	t.Skipped += o.Skipped
	t.ErrorClasses = addCounts(t.ErrorClasses, o.ErrorClasses)
}

// DatabaseKind is what sort of database the run had (Database, which
// target.Spec.Form names and every run records). A result written before
// Database was recorded has only what its DB showed, a frozen format of
// those versions (no --db is read here, and an engine added since always
// records Database): it began with "sqlite", "temp-NAME" (a throwaway
// server, "@VERSION" left out) or a server's URL.
func (c Config) DatabaseKind() string {
	switch {
	case c.Database != "", c.DB == "":
		return c.Database
	case strings.HasPrefix(c.DB, "sqlite"):
		return "sqlite"
	case strings.HasPrefix(c.DB, "temp-"):
		form, _, _ := strings.Cut(c.DB, " ")
		form, _, _ = strings.Cut(form, "@")
		return form
	}
	return "server"
}

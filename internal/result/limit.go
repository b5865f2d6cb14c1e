package result

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// CPUUse is the CPU of the parts of a run txnbench started or runs itself,
// and of the whole machine, over the span the client's CPU is measured in.
type CPUUse struct {
	SpanS float64 `json:"span_s"` // the span the figures cover, in s
	Cores int     `json:"cores"`  // the machine's CPUs
	// MachineBusy is the whole machine's busy share of all its CPUs over
	// the span, 0..1 (/proc/stat); 0 when unknown.
	MachineBusy float64 `json:"machine_busy"`
	// Parts are the run's processes by part: "server" (a throwaway
	// server's processes, its ended backends included), "PgBouncer",
	// "HAProxy", "network proxy" and "clients" (txnbench's own, the
	// network proxies' taken off).
	Parts []PartCPU `json:"parts"`
	// ServerSeen: the server's CPU is among Parts (txnbench started it,
	// or it is embedded in the clients').
	ServerSeen bool `json:"server_seen,omitempty"`
	// RunQueue is how long the run's processes waited for a core.
	RunQueue *RunQueue `json:"run_queue,omitempty"`
}

// RunQueue is the scheduler's account of the run's processes over the
// span (/proc/PID/task/*/schedstat): txnbench's threads and every process
// of the parts it started that lived through the span (the server's
// backends of sessions that ended are not in it).
type RunQueue struct {
	// CPUS is their time on a core, WaitS their time ready to run but
	// waiting for one, in s.
	CPUS  float64 `json:"cpu_s"`
	WaitS float64 `json:"wait_s"`
}

// Stretch is how much longer the run's work on a core took than on free
// cores: 1 + WaitS/CPUS (1 on an idle machine; 3 when every second on a
// core cost two more in the queue); 0 when unknown. A run bound by its
// CPU work goes that much slower; one bound by other waits (locks, round
// trips, sleeps) less, and those waits are not in it: a new lock or
// sleep does not stretch it.
func (c *CPUUse) Stretch() float64 {
	if c == nil || c.RunQueue == nil || c.RunQueue.CPUS <= 0 {
		return 0
	}
	return 1 + c.RunQueue.WaitS/c.RunQueue.CPUS
}

// PartCPU is one part's CPU over the span.
type PartCPU struct {
	Name      string  `json:"name"`
	Processes int     `json:"processes,omitempty"` // how many processes (PgBouncers in a fleet)
	CPUS      float64 `json:"cpu_s"`               // all of them together, in s
	// BusiestCores is the busiest of the processes in cores (1 = one
	// core busy): for PgBouncer, whose one thread does all its work, how
	// near it came to its limit.
	BusiestCores float64 `json:"busiest_cores,omitempty"`
	// SingleThread: each process runs on one thread (PgBouncer), so it
	// can use no more than one core.
	SingleThread bool `json:"single_thread,omitempty"`
}

// Cores is the part's CPU in cores over span seconds.
func (p PartCPU) Cores(span float64) float64 {
	if span <= 0 {
		return 0
	}
	return p.CPUS / span
}

// Part is the named part's CPU, or nil.
func (c *CPUUse) Part(name string) *PartCPU {
	if c == nil {
		return nil
	}
	for i := range c.Parts {
		if c.Parts[i].Name == name {
			return &c.Parts[i]
		}
	}
	return nil
}

// Others is the share of the machine's CPU, 0..1, that none of the run's
// parts used: other processes'; false when it cannot be told (the
// machine's figure unknown, or the server's CPU not seen: a server on this
// machine would count as other).
func (c *CPUUse) Others() (float64, bool) {
	if c == nil || c.MachineBusy <= 0 || c.Cores <= 0 || c.SpanS <= 0 || !c.ServerSeen {
		return 0, false
	}
	var run float64
	for _, p := range c.Parts {
		run += p.Cores(c.SpanS)
	}
	return max(c.MachineBusy-run/float64(c.Cores), 0), true
}

// mergeCPU is the CPU of results merged by Merge: the first's (its
// server, poolers and machine are every shard's when they share them), the
// clients' of every one added up: the other shards' clients are the run's
// too, not other processes'.
func mergeCPU(rs []*Result) *CPUUse {
	if rs[0].CPU == nil {
		return nil
	}
	c := *rs[0].CPU
	c.Parts = slices.Clone(c.Parts)
	if p := c.Part("clients"); p != nil {
		p.CPUS = 0
		for _, r := range rs {
			if q := r.CPU.Part("clients"); q != nil {
				p.CPUS += q.CPUS
			}
		}
	}
	return &c
}

// Limit is what bound a run: the part that was at its limit, decided from
// the run's own figures by DecideLimit.
type Limit struct {
	// Part is the kind of limit: connections, stalls, machine, pooler, proxy,
	// locks, waits, round trips, pool, server, client, rate or none.
	Part string `json:"part"`
	// Line says what and how near, e.g. "PgBouncer CPU (one thread at 97%
	// of a core)".
	Line string `json:"line"`
	// ThisMachine: the limit is a part that would run on a host of its
	// own in production (a pooler, a proxy) while it shared the cores
	// with the rest of the run, so a comparison it decides is this
	// machine's conclusion.
	ThisMachine bool `json:"this_machine,omitempty"`
}

// String is the limit as every report prints it after "limited by: ".
func (l *Limit) String() string {
	if l == nil {
		return "not known (no CPU figures in this result)"
	}
	if l.ThisMachine {
		return l.Line + "; it shared the machine's cores with the rest of the run: this machine's limit, not the part's on a host of its own"
	}
	return l.Line
}

// The thresholds DecideLimit decides by (docs/telemetry.md lists them).
const (
	// LimitSaturated is the share of a core (one thread) or of the
	// machine's cores at which a part counts as at its limit.
	LimitSaturated = 0.85
	// LimitOthers is the share of the machine's CPU used by processes
	// not the run's at which the machine itself is the limit.
	LimitOthers = 0.25
	// LimitProxyShare is the share of the machine's CPU the network
	// proxy may use before it, not the network it makes, is the limit.
	LimitProxyShare = 0.25
	// LimitWaitShare is the share of the active samples one wait class
	// (Lock, IO, ...) must hold to be the limit.
	LimitWaitShare = 0.30
	// LimitLatencyShare is the share of a transaction's mean latency that
	// round trips or waiting for a connection must take to be the limit.
	LimitLatencyShare = 0.5
	// LimitRefusals is the share of a run's attempts refused a connection
	// (too many connections) at which connections are the limit.
	LimitRefusals = 0.01
	// LimitStallShare is the share of the window, in progress intervals
	// in which no transaction completed, at which the stalls are the
	// limit; an interval counts only when the run's pace in its other
	// intervals would have put LimitStallPace transactions in it (a slow
	// or rate-limited run's empty intervals are its pace, not a stall).
	LimitStallShare = 0.25
	LimitStallPace  = 3.0
)

// DecideLimit is what bound r, from its own figures, by the first rule
// that holds, in this order: connections refused (max_connections);
// stalls (a quarter of the window in which no transaction completed: a
// fault, or a server or pooler frozen or gone, which no figure of the
// parts that did run would name); a single-threaded pooler at its core;
// the network proxy's CPU (these two bind whatever else runs: other
// processes on the cores only make them this machine's limit); round trips (the --network proxy's asked round
// trip times the statements of a transaction: a delay the proxy makes by
// the clock, which no core given back would shorten, so when it alone is
// half a transaction it binds the run however busy the machine); the
// machine's cores all busy, a share of them with other processes; lock
// waits, then other waits (a starved lock holder makes the others wait,
// so these come after the machine); the wait for a pooled connection (txnbench's pool, or a pooler's server
// connections); a machine whose cores are all busy (the
// largest part named: server, client, pooler); the --rate; else none. Nil
// without CPU figures. The thresholds are the Limit* constants.
func DecideLimit(r *Result) *Limit {
	c := r.CPU
	if c == nil || c.SpanS <= 0 {
		return nil
	}
	busy := c.MachineBusy >= LimitSaturated
	for _, rule := range limitRules {
		if l := rule(r, c, busy); l != nil {
			return l
		}
	}
	return &Limit{Part: "none", Line: fmt.Sprintf("no part at its limit (the machine %.0f%% busy): the clients' own pace", 100*c.MachineBusy)}
}

var limitRules = []func(r *Result, c *CPUUse, busy bool) *Limit{
	limitConnections, limitStalls, limitPooler, limitProxy, limitRoundTrips, limitOthers, limitWaits, limitPoolWait, limitBusyMachine, limitRate,
}

func limitConnections(r *Result, _ *CPUUse, _ bool) *Limit {
	var refused, attempts int64
	for _, o := range r.Ops {
		if o.Kind.IsTxn() || o.Kind == KindWait {
			refused += o.Errors["too_many_connections"]
			attempts += o.Count + o.Retries + o.ErrorCount()
		}
	}
	if refused == 0 || float64(refused) < LimitRefusals*float64(attempts) {
		return nil
	}
	setting := "the server's connection limit"
	for _, kv := range r.Config.PGConf {
		if strings.HasPrefix(kv, "max_connections=") {
			setting = kv
		}
	}
	return &Limit{Part: "connections", Line: fmt.Sprintf("connections (%s: %d errors of too many connections)", setting, refused)}
}

func limitStalls(r *Result, c *CPUUse, busy bool) *Limit {
	txns := map[string]bool{}
	for _, o := range r.Ops {
		if o.Kind.IsTxn() {
			txns[o.Name] = true
		}
	}
	completed := func(iv Interval) (n int64) {
		for _, o := range iv.Ops {
			if txns[o.Name] {
				n += o.Count
			}
		}
		return n
	}
	var window, runningS, stalledS, longest, longestFrom, runFrom, run float64
	var done int64
	var stalled [][2]float64 // [from, to] in s of the window
	for _, iv := range r.Intervals {
		window += iv.LengthS
		if n := completed(iv); n > 0 {
			done += n
			runningS += iv.LengthS
		}
	}
	if done == 0 || window <= 0 {
		return nil // nothing ran at all: the run's errors say why
	}
	pace := float64(done) / runningS // transactions a second while any completed
	for _, iv := range r.Intervals {
		if completed(iv) > 0 || pace*iv.LengthS < LimitStallPace {
			run = 0
			continue
		}
		from := iv.ElapsedS - iv.LengthS
		stalledS += iv.LengthS
		if run == 0 {
			runFrom = from
		}
		if run += iv.LengthS; run > longest {
			longest, longestFrom = run, runFrom
		}
		if k := len(stalled); k > 0 && stalled[k-1][1] >= from-1e-9 {
			stalled[k-1][1] = iv.ElapsedS
		} else {
			stalled = append(stalled, [2]float64{from, iv.ElapsedS})
		}
	}
	if stalledS < LimitStallShare*window {
		return nil
	}
	var faults []string
	for _, f := range r.Faults {
		for _, sp := range stalled {
			if f.AtS <= sp[1] && f.AtS+f.LastedS >= sp[0] {
				at := fmt.Sprintf("%s at %.1f s", f.Kind, f.AtS)
				if f.LastedS > 0 { // a death found or backends terminated last no time of their own
					at += fmt.Sprintf(" (lasted %.1f s)", f.LastedS)
				}
				faults = append(faults, at)
				break
			}
		}
	}
	cause := "no fault was injected then: something the clients wait on stopped answering"
	switch w := limitWaits(r, c, busy); {
	case len(faults) > 0:
		cause = "the faults then: " + strings.Join(faults, ", ")
	case w != nil: // a lock held that long stalls the run too
		cause = "no fault was injected then; the run's waits: " + w.Line
	}
	return &Limit{Part: "stalls", Line: fmt.Sprintf("stalls (no transaction completed in %.1f s of the %.1f s window, the longest %.1f s from %.1f s; %s)",
		stalledS, window, longest, longestFrom, cause)}
}

func limitOthers(_ *Result, c *CPUUse, busy bool) *Limit {
	others, ok := c.Others()
	if !busy || !ok || others < LimitOthers {
		return nil
	}
	return &Limit{Part: "machine", Line: fmt.Sprintf("the machine: cores shared with other processes (%.0f%% of CPU not this run's)", 100*others)}
}

func limitPooler(_ *Result, c *CPUUse, busy bool) *Limit {
	for _, name := range []string{"PgBouncer", "HAProxy"} {
		p := c.Part(name)
		if p == nil || !p.SingleThread || p.BusiestCores < LimitSaturated {
			continue
		}
		which := "one thread"
		if p.Processes > 1 {
			which = fmt.Sprintf("the busiest of %d, one thread each,", p.Processes)
		}
		return &Limit{Part: "pooler", Line: fmt.Sprintf("%s CPU (%s at %.0f%% of a core)", name, which, 100*p.BusiestCores), ThisMachine: busy}
	}
	return nil
}

func limitProxy(_ *Result, c *CPUUse, busy bool) *Limit {
	p := c.Part("network proxy")
	if p == nil || c.Cores <= 0 {
		return nil
	}
	share := p.Cores(c.SpanS) / float64(c.Cores)
	if share < LimitProxyShare {
		return nil
	}
	return &Limit{Part: "proxy", Line: fmt.Sprintf("the network proxy (%.0f%% of the machine's CPU, %.2f cores, making the --network)", 100*share, p.Cores(c.SpanS)), ThisMachine: busy}
}

func limitWaits(r *Result, _ *CPUUse, _ bool) *Limit {
	t := r.Telemetry
	if t == nil || t.Waits == nil || t.Waits.ActiveSamples == 0 {
		return nil
	}
	for _, cl := range t.Waits.Classes {
		if cl.Name == "CPU" || cl.Name == "Client" || cl.Share < LimitWaitShare {
			continue
		}
		// the class's largest event, as "Lock:tuple 41% of samples"
		ev := WaitShare{Name: cl.Name, Share: cl.Share}
		for _, e := range t.Waits.Events {
			if strings.HasPrefix(e.Name, cl.Name+":") {
				ev = e
				break
			}
		}
		what, part := "waits", "waits"
		if cl.Name == "Lock" {
			what, part = "lock waits", "locks"
		}
		return &Limit{Part: part, Line: fmt.Sprintf("%s (%s %.0f%% of samples)", what, ev.Name, 100*ev.Share)}
	}
	return nil
}

func limitRoundTrips(r *Result, _ *CPUUse, _ bool) *Limit {
	if r.Network == nil {
		return nil
	}
	rtt := r.Network.RTTMs
	mean, execs := txnMean(r)
	if rtt <= 0 || mean <= 0 {
		return nil
	}
	statements := 0.0
	if t := r.Telemetry; t != nil && execs > 0 {
		var calls int64
		for _, st := range t.Statements {
			if st.Op != "" {
				calls += st.Calls
			}
		}
		statements = float64(calls) / float64(execs)
	}
	if statements < 1 {
		return nil // without pg_stat_statements the round trips are not counted
	}
	if statements*rtt < LimitLatencyShare*mean {
		return nil
	}
	return &Limit{Part: "round trips", Line: fmt.Sprintf("round trips (%s ms x %.0f statements of a %s ms transaction: the --network proxy's %s)", trimMS(rtt), statements, trimMS(mean), r.Network.Shape)}
}

func limitPoolWait(r *Result, _ *CPUUse, _ bool) *Limit {
	var w *Op
	for i := range r.Ops {
		if r.Ops[i].Kind == KindWait {
			w = &r.Ops[i]
		}
	}
	mean, _ := txnMean(r)
	if mean <= 0 {
		return nil
	}
	if w != nil && r.Pool != nil && w.Mean >= LimitLatencyShare*mean {
		return &Limit{Part: "pool", Line: fmt.Sprintf("the pool (%d connections: clients waited %s ms for one, beside a %s ms transaction)", r.Pool.MaxConns, trimMS(w.Mean), trimMS(mean))}
	}
	// a pooler's clients waiting for a server connection (PgBouncer's
	// total_wait_time, in us, over its transactions)
	if p := r.Pooler; p != nil && p.Stats["total_xact_count"] > 0 {
		wait := float64(p.Stats["total_wait_time"]) / 1000 / float64(p.Stats["total_xact_count"])
		if wait >= LimitLatencyShare*mean {
			return &Limit{Part: "pool", Line: fmt.Sprintf("%s's server connections (%s: clients waited %s ms a transaction for one, beside a %s ms transaction)", p.Name, p.Detail, trimMS(wait), trimMS(mean))}
		}
	}
	return nil
}

func limitBusyMachine(_ *Result, c *CPUUse, busy bool) *Limit {
	if !busy || len(c.Parts) == 0 {
		return nil
	}
	parts := slices.Clone(c.Parts)
	slices.SortStableFunc(parts, func(a, b PartCPU) int { return cmp.Compare(b.CPUS, a.CPUS) })
	top := parts[0]
	var shares []string
	for _, p := range parts {
		shares = append(shares, fmt.Sprintf("%s %.2f", p.Name, p.Cores(c.SpanS)))
	}
	names := map[string]string{"server": "server CPU", "clients": "client CPU", "PgBouncer": "PgBouncer CPU", "HAProxy": "HAProxy CPU", "network proxy": "the network proxy's CPU"}
	kinds := map[string]string{"server": "server", "clients": "client", "PgBouncer": "pooler", "HAProxy": "pooler", "network proxy": "proxy"}
	if !c.ServerSeen && top.Cores(c.SpanS) < LimitSaturated*float64(c.Cores) {
		// a server on this machine txnbench did not start may be the
		// largest part: its CPU is not known
		return &Limit{Part: "machine", Line: fmt.Sprintf("the machine (its %d cores %.0f%% busy; the server's CPU not seen, txnbench did not start it; cores: %s)", c.Cores, 100*c.MachineBusy, strings.Join(shares, ", "))}
	}
	l := &Limit{Part: kinds[top.Name], Line: fmt.Sprintf("%s (the machine's %d cores %.0f%% busy; cores: %s)", names[top.Name], c.Cores, 100*c.MachineBusy, strings.Join(shares, ", "))}
	l.ThisMachine = l.Part == "pooler" || l.Part == "proxy"
	return l
}

func limitRate(r *Result, _ *CPUUse, _ bool) *Limit {
	if r.Config.Rate <= 0 || r.Behind != nil {
		return nil
	}
	return &Limit{Part: "rate", Line: fmt.Sprintf("the rate (--rate %g/s, kept)", r.Config.Rate)}
}

// txnMean is the mean latency of r's transactions, weighted by count, and
// how often they ran on the server (Op.Executions).
func txnMean(r *Result) (mean float64, execs int64) {
	var n int64
	for _, o := range r.Ops {
		if o.Kind.IsTxn() && o.Count > 0 {
			mean += o.Mean * float64(o.Count)
			n += o.Count
			execs += o.Executions()
		}
	}
	if n == 0 {
		return 0, execs
	}
	return mean / float64(n), execs
}

func trimMS(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

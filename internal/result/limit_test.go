package result

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/metrics"
)

// planted is a 10 s run of 1,000 transactions of mean ms on a 2-core
// machine busy busy, with the parts given (CPU seconds over the 10 s).
func planted(mean, busy float64, parts ...PartCPU) *Result {
	return &Result{
		Ops: []Op{{Name: "txn", Summary: metrics.Summary{Count: 1000, Mean: mean}}},
		CPU: &CPUUse{SpanS: 10, Cores: 2, MachineBusy: busy, Parts: parts, ServerSeen: true},
	}
}

// timeline gives r a progress interval of 0.5 s for each count, the
// transactions of op "txn" that completed in it.
func timeline(r *Result, counts ...int64) *Result {
	for i, n := range counts {
		r.Intervals = append(r.Intervals, Interval{ElapsedS: 0.5 * float64(i+1), LengthS: 0.5, Ops: []IntervalOp{{Name: "txn", Summary: metrics.Summary{Count: n}}}})
	}
	return r
}

// TestDecideLimit plants each limit in a result's figures and holds the
// line DecideLimit makes of it, and that the rules ahead of it do not
// take it.
func TestDecideLimit(t *testing.T) {
	server := func(s float64) PartCPU { return PartCPU{Name: "server", CPUS: s} }
	clients := func(s float64) PartCPU { return PartCPU{Name: "clients", CPUS: s} }
	bouncer := func(s float64) PartCPU {
		return PartCPU{Name: "PgBouncer", Processes: 1, CPUS: s, BusiestCores: s / 10, SingleThread: true}
	}
	cases := []struct {
		name        string
		r           *Result
		part, line  string
		thisMachine bool
	}{
		{"PgBouncer at full speed on shared cores", planted(5, 0.97, server(6), bouncer(9.7), clients(3.5)),
			"pooler", "PgBouncer CPU (one thread at 97% of a core)", true},
		{"PgBouncer at full speed, cores to spare", planted(5, 0.6, server(3), bouncer(9.0)),
			"pooler", "PgBouncer CPU (one thread at 90% of a core)", false},
		// issue 38: other processes took 41% of the cores while PgBouncer's
		// one thread was at its core; it, not the machine, bound the run
		{"PgBouncer at full speed beside other processes", planted(5, 1, server(0.6), bouncer(9.8), clients(1.5)),
			"pooler", "PgBouncer CPU (one thread at 98% of a core)", true},
		{"the network proxy", func() *Result {
			r := planted(20, 0.95, server(5), PartCPU{Name: "network proxy", CPUS: 5.24}, clients(8.5))
			r.Network = &Network{Shape: "rtt=0s", ProxyCPUS: 5.24}
			return r
		}(), "proxy", "the network proxy (26% of the machine's CPU, 0.52 cores", true},
		{"the network proxy beside other processes", func() *Result {
			r := planted(20, 1, server(2), PartCPU{Name: "network proxy", CPUS: 6}, clients(2))
			r.Network = &Network{Shape: "rtt=0s", ProxyCPUS: 6}
			return r
		}(), "proxy", "the network proxy (30% of the machine's CPU, 0.60 cores", true},
		{"max_connections", func() *Result {
			r := planted(5, 0.3, server(2), clients(1))
			r.Config.PGConf = []string{"max_connections=20"}
			r.Ops = append(r.Ops, Op{Name: "connect", Kind: KindWait, Errors: map[string]int64{"too_many_connections": 40}, Summary: metrics.Summary{Count: 60}})
			return r
		}(), "connections", "connections (max_connections=20: 40 errors of too many connections)", false},
		{"lock contention on one row", func() *Result {
			r := planted(40, 0.2, server(1), clients(0.5))
			r.Telemetry = &Telemetry{Waits: &Waits{ActiveSamples: 100,
				Classes: []WaitShare{{Name: "Lock", Samples: 75, Share: 0.75}, {Name: "CPU", Samples: 25, Share: 0.25}},
				Events:  []WaitShare{{Name: "Lock:transactionid", Samples: 60, Share: 0.6}, {Name: "Lock:tuple", Samples: 15, Share: 0.15}}}}
			return r
		}(), "locks", "lock waits (Lock:transactionid 60% of samples)", false},
		{"spinning processes beside the run", planted(5, 0.99, server(4), clients(2)),
			"machine", "the machine: cores shared with other processes (69% of CPU not this run's)", false},
		{"round trips", func() *Result {
			r := planted(60, 0.2, server(1), clients(0.5))
			r.Network = &Network{Shape: "rtt=2ms", RTTMs: 2}
			r.Telemetry = &Telemetry{Statements: []Statement{{Op: "txn", Calls: 28000}}}
			return r
		}(), "round trips", "round trips (2 ms x 28 statements of a 60 ms transaction: the --network proxy's rtt=2ms)", false},
		// the asked round trips are the clock's, not the cores': other
		// processes on them did not make the run slower than those
		{"round trips beside other processes", func() *Result {
			r := planted(250, 1, server(0.2), clients(0.1))
			r.Network = &Network{Shape: "rtt=200ms", RTTMs: 200}
			r.Telemetry = &Telemetry{Statements: []Statement{{Op: "txn", Calls: 1000}}}
			return r
		}(), "round trips", "round trips (200 ms x 1 statements of a 250 ms transaction", false},
		{"short round trips beside other processes", func() *Result {
			r := planted(250, 1, server(0.2), clients(0.1))
			r.Network = &Network{Shape: "rtt=2ms", RTTMs: 2}
			r.Telemetry = &Telemetry{Statements: []Statement{{Op: "txn", Calls: 1000}}}
			return r
		}(), "machine", "the machine: cores shared with other processes", false},
		{"the pool", func() *Result {
			r := planted(10, 0.3, server(2), clients(1))
			r.Pool = &PoolStats{MaxConns: 4}
			r.Ops = append(r.Ops, Op{Name: "wait", Kind: KindWait, Summary: metrics.Summary{Count: 1000, Mean: 8}})
			return r
		}(), "pool", "the pool (4 connections: clients waited 8 ms for one, beside a 10 ms transaction)", false},
		{"PgBouncer's server connections", func() *Result {
			r := planted(10, 0.3, server(2), bouncer(1), clients(1))
			r.Pooler = &Pooler{Name: "PgBouncer", Detail: "transaction pooling, 2 server connections", Stats: map[string]int64{"total_xact_count": 1000, "total_wait_time": 7_000_000}}
			return r
		}(), "pool", "PgBouncer's server connections (transaction pooling, 2 server connections: clients waited 7 ms a transaction for one, beside a 10 ms transaction)", false},
		{"server CPU", planted(5, 0.95, server(14), clients(4)),
			"server", "server CPU (the machine's 2 cores 95% busy; cores: server 1.40, clients 0.40)", false},
		{"client CPU", planted(5, 0.95, server(4), clients(14)),
			"client", "client CPU (the machine's 2 cores 95% busy; cores: clients 1.40, server 0.40)", false},
		{"the rate", func() *Result {
			r := planted(5, 0.3, server(2), clients(1))
			r.Config.Rate = 100
			return r
		}(), "rate", "the rate (--rate 100/s, kept)", false},
		// a pooler frozen (SIGSTOP) for half the run: its sessions' lock
		// waits were the largest figure, and the run said they bound it
		{"a stall, nothing injected", func() *Result {
			r := timeline(planted(5, 0.3, server(1), clients(0.5)), 50, 50, 50, 50, 0, 0, 0, 0, 0, 0, 0, 0, 50, 50, 50, 50)
			r.Telemetry = &Telemetry{Waits: &Waits{ActiveSamples: 10, Classes: []WaitShare{{Name: "Lock", Samples: 6, Share: 0.6}}}}
			return r
		}(), "stalls", "stalls (no transaction completed in 4.0 s of the 8.0 s window, the longest 4.0 s from 2.0 s; no fault was injected then; the run's waits: lock waits (Lock 60% of samples))", false},
		{"a stall, nothing injected, no waits", timeline(planted(5, 0.3, server(1), clients(0.5)), 50, 50, 50, 50, 0, 0, 0, 0, 50, 50, 50, 50),
			"stalls", "stalls (no transaction completed in 2.0 s of the 6.0 s window, the longest 2.0 s from 2.0 s; no fault was injected then: something the clients wait on stopped answering)", false},
		{"stalls beside a fault", func() *Result {
			r := timeline(planted(5, 0.3, server(1), clients(0.5)), 50, 50, 0, 0, 0, 0, 0, 50, 50, 0, 0, 50)
			r.Faults = []Fault{{AtS: 1, Kind: "kill-server", LastedS: 2.4}, {AtS: 3.6, Kind: "terminate-backends"}, {AtS: 4.6, Kind: "hang-server", LastedS: 0.8}, {AtS: 5.2, Kind: "died"}}
			return r
		}(), "stalls", "stalls (no transaction completed in 3.5 s of the 6.0 s window, the longest 2.5 s from 1.0 s; the faults then: kill-server at 1.0 s (lasted 2.4 s), hang-server at 4.6 s (lasted 0.8 s), died at 5.2 s)", false},
		{"empty intervals of a slow run are its pace", timeline(planted(5, 0.3, server(2), clients(1)), 1, 0, 1, 0, 0, 1, 0, 2, 0, 0, 1, 1),
			"none", "no part at its limit", false},
		{"stalls in less than a quarter of the window", timeline(planted(5, 0.3, server(2), clients(1)), 50, 0, 0, 0, 50, 50, 50, 50, 50, 50, 50, 50, 50),
			"none", "no part at its limit", false},
		{"nothing", planted(5, 0.3, server(2), clients(1)),
			"none", "no part at its limit (the machine 30% busy)", false},
	}
	for _, c := range cases {
		l := DecideLimit(c.r)
		if l == nil || l.Part != c.part || !strings.HasPrefix(l.Line, c.line) || l.ThisMachine != c.thisMachine {
			t.Errorf("%s: limit %+v, want part %q, line starting %q, this machine %v", c.name, l, c.part, c.line, c.thisMachine)
			continue
		}
		if got := l.String(); c.thisMachine != strings.Contains(got, "this machine's limit") {
			t.Errorf("%s: %q says this machine's: %v, want %v", c.name, got, !c.thisMachine, c.thisMachine)
		}
	}
	if l := DecideLimit(&Result{}); l != nil {
		t.Errorf("a result without CPU figures: limit %+v, want none", l)
	}
}

// TestOthersNeedTheServer: a server txnbench did not see may run on this
// machine, so its CPU is not counted as other processes', and a busy
// machine is not put down to the clients, the largest part seen.
func TestOthersNeedTheServer(t *testing.T) {
	r := planted(5, 0.99, PartCPU{Name: "clients", CPUS: 2})
	r.CPU.ServerSeen = false
	if l := DecideLimit(r); l.Part != "machine" || strings.Contains(l.Line, "other processes") || !strings.Contains(l.Line, "the server's CPU not seen") {
		t.Errorf("limit %+v: want the busy machine, the unseen server's CPU neither taken for other processes' nor left out of the reason", l)
	}
}

// TestNetworkWarning: the round trip measured during the window is held
// against what was asked (or the idle path's, when more), 20% either way.
func TestNetworkWarning(t *testing.T) {
	for _, c := range []struct {
		asked, idle, window float64
		warn                bool
	}{
		{1, 1.01, 1.1, false},
		{1, 1.01, 45, true},     // the proxy starved under the run's load
		{0, 0.05, 0.055, false}, // rtt=0ms: the idle hop's own
		{0, 0.05, 4.2, true},
		{10, 10.1, 7, true}, // faster than asked
		{2, 2.1, 0, false},  // not measured
	} {
		n := &Network{Shape: "rtt=x", RTTMs: c.asked, MeasuredRTTMs: c.idle, WindowRTTMs: c.window, ProxyCPUS: 5.24}
		w := n.Warning(10)
		if (w != "") != c.warn {
			t.Errorf("asked %g ms, idle %g, during the run %g: warning %q, want one: %v", c.asked, c.idle, c.window, w, c.warn)
		}
		if c.warn && (!strings.Contains(w, "proxy used 5.24 s (52% of one core)") || !strings.Contains(n.RTT(10), "(off)")) {
			t.Errorf("warning %q / cell %q without the proxy's CPU or the mark", w, n.RTT(10))
		}
	}
}

// TestOthersNeedABusyMachine: other processes on a machine with cores to
// spare took nothing from the run.
func TestOthersNeedABusyMachine(t *testing.T) {
	r := planted(5, 0.6, PartCPU{Name: "server", CPUS: 1}, PartCPU{Name: "clients", CPUS: 1})
	if l := DecideLimit(r); l.Part == "machine" {
		t.Errorf("limit %+v on a machine 60%% busy", l)
	}
}

// TestMergeCPU: merged shards' clients are all the run's: their CPU is
// added up, not left to count as other processes'.
func TestMergeCPU(t *testing.T) {
	a := planted(5, 0.9, PartCPU{Name: "server", CPUS: 6}, PartCPU{Name: "clients", CPUS: 6})
	b := planted(5, 0.9, PartCPU{Name: "server", CPUS: 6}, PartCPU{Name: "clients", CPUS: 6})
	c := mergeCPU([]*Result{a, b})
	if got := c.Part("clients").CPUS; got != 12 || a.CPU.Part("clients").CPUS != 6 {
		t.Errorf("merged clients' CPU %g s (the first's now %g), want 12 and the first's left alone", got, a.CPU.Part("clients").CPUS)
	}
	if others, _ := c.Others(); others > 0.01 {
		t.Errorf("merged: %.0f%% of the CPU not the run's, want none", 100*others)
	}
}

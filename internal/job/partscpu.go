package job

import (
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/telemetry"
	"github.com/txnbench/txnbench/internal/tempdir"
)

// tickS is a /proc clock tick (USER_HZ) in seconds.
const tickS = 0.01

// partsCPU is a runner observer measuring the CPU of the parts of the run
// txnbench started (the server, its PgBouncers, HAProxy) and the whole
// machine's over the span the runner measures the client's CPU in (Start
// to Stop); use adds the clients' and the network proxies' of the result.
type partsCPU struct {
	db         *Database
	at, to     time.Time
	busy, tot  [2]uint64            // the machine's ticks at Start and Stop
	from, upto map[string][]float64 // by part, each process's CPU in s at Start and Stop
	rqFrom     map[int]schedTimes   // the run's processes' run queue at Start
	rqUpto     map[int]schedTimes   // and at Stop
}

func (o *partsCPU) Start() {
	o.at = time.Now()
	o.busy[0], o.tot[0] = telemetry.MachineTicks()
	o.from = o.db.partsCPU()
	o.rqFrom = o.db.runQueueNow()
}

func (o *partsCPU) Tick(result.Interval) {}
func (o *partsCPU) WindowEnd()           {}

func (o *partsCPU) Stop() {
	o.to = time.Now()
	o.busy[1], o.tot[1] = telemetry.MachineTicks()
	o.upto = o.db.partsCPU()
	o.rqUpto = o.db.runQueueNow()
}

// use is the CPU of r's run: the parts' and the machine's over the span,
// with the clients' (r.Client) and the network proxies' (r.Network); nil
// when the span was not observed.
func (o *partsCPU) use(r *result.Result) *result.CPUUse {
	if o == nil {
		return nil
	}
	span := o.to.Sub(o.at).Seconds()
	if o.from == nil || o.upto == nil || span <= 0 {
		return nil
	}
	u := &result.CPUUse{SpanS: span, ServerSeen: r.Server.Embedded, RunQueue: runQueueUse(o.rqFrom, o.rqUpto)}
	if dt := o.tot[1] - o.tot[0]; o.tot[0] > 0 && dt > 0 {
		u.MachineBusy = float64(o.busy[1]-o.busy[0]) / float64(dt)
		u.Cores = max(int(float64(dt)*tickS/span+0.5), 1)
	}
	for _, name := range []string{"server", "PgBouncer", "HAProxy"} {
		before, after := o.from[name], o.upto[name]
		if len(after) == 0 || len(after) != len(before) {
			continue
		}
		p := result.PartCPU{Name: name, Processes: len(after), SingleThread: name != "server"}
		if name == "server" {
			p.Processes = 0 // one tree of processes, its ended backends in it
		}
		for i := range after {
			d := max(after[i]-before[i], 0) // a process restarted meanwhile starts again from 0
			p.CPUS += d
			p.BusiestCores = max(p.BusiestCores, d/span)
		}
		if name == "server" {
			p.BusiestCores, u.ServerSeen = 0, true
		}
		u.Parts = append(u.Parts, p)
	}
	if n := r.Network; n != nil && n.ProxyCPUS > 0 {
		u.Parts = append(u.Parts, result.PartCPU{Name: "network proxy", CPUS: n.ProxyCPUS})
	}
	u.Parts = append(u.Parts, result.PartCPU{Name: "clients", CPUS: r.Client.CPUUserS + r.Client.CPUSysS})
	return u
}

// partsCPU is the CPU so far, in s, of each process of the parts of the
// run txnbench started, by part: the server (its processes and the
// backends its postmaster reaped: those of sessions that ended), each
// PgBouncer, HAProxy.
func (d *Database) partsCPU() map[string][]float64 {
	out := map[string][]float64{}
	if d.server != nil {
		if pid := d.server.PID(); pid > 0 {
			out["server"] = []float64{processTreeCPU(pid)}
		}
	}
	for _, pid := range d.poolerPIDs() {
		out["PgBouncer"] = append(out["PgBouncer"], processCPU(pid))
	}
	if p := d.Proxy(); p != nil {
		out["HAProxy"] = []float64{processCPU(p.PID())}
	}
	return out
}

// processCPU is process pid's CPU time so far, in s (0 when unknown).
func processCPU(pid int) float64 {
	st, _ := tempdir.Stat(pid)
	return st.CPU.Seconds()
}

// processTreeCPU is pid's CPU time so far with its children's, live and
// reaped, in s.
func processTreeCPU(pid int) float64 {
	st, ok := tempdir.Stat(pid)
	if !ok {
		return 0
	}
	cpu := st.CPU + st.Reaped
	for _, c := range children(pid) {
		if cs, ok := tempdir.Stat(c); ok {
			cpu += cs.CPU + cs.Reaped
		}
	}
	return cpu.Seconds()
}

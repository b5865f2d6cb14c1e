package cli

import (
	"fmt"

	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/live"
)

// liveMetrics is the --metrics-addr endpoint of a run or a study. A nil
// *liveMetrics (no --metrics-addr) does nothing.
type liveMetrics struct {
	m   *live.Metrics
	srv *live.Server
}

// serveMetrics listens on addr and serves the metrics until close; it
// returns nil when addr is "". Call it before anything starts, so a busy
// port fails the command before a server is started for it.
func (a *app) serveMetrics(addr string) (*liveMetrics, error) {
	if addr == "" {
		return nil, nil
	}
	m := live.New()
	srv, err := live.Listen(addr, m)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	where := ""
	if srv.EveryInterface() {
		where = "every interface; "
	}
	a.status("metrics on " + srv.URL() + " (" + where + "updated every --progress interval)")
	return &liveMetrics{m: m, srv: srv}, nil
}

// track makes the run of s on db feed the metrics: its intervals count
// towards cell ("" outside a study) once it measures, until its clients
// are done.
func (l *liveMetrics) track(s *job.Spec, db *job.Database, cell string) {
	if l == nil {
		return
	}
	d := db.Dialect()
	s.Runner.Observers = append(s.Runner.Observers, l.m.Track(live.Info{Cell: cell, Workload: s.Name, Database: db.URL,
		ServerVersion: d.Name + " " + d.Version, Version: version(), Clients: s.Runner.Clients}))
}

// close stops serving.
func (l *liveMetrics) close() {
	if l != nil {
		l.srv.Close()
	}
}

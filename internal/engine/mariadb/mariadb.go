// Package mariadb is the MariaDB (and MySQL) engine's server side:
// temp-mariadb (a throwaway MariaDB of localdb's, its load user,
// --mariadb-conf), the telemetry's status variables, KILL for the
// faults. Its driver is internal/target/mysql.
package mariadb

import (
	"context"
	"fmt"
	"time"

	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/telemetry"
)

func init() { engine.Register(mariadb{}) }

type mariadb struct{}

func (mariadb) Name() string               { return "mariadb" }
func (mariadb) Flags() engine.Flags        { return engine.Flags{Settings: "mariadb-conf"} }
func (mariadb) Caps() engine.Caps          { return engine.Caps{} }
func (mariadb) CheckBin(string) error      { return nil }
func (mariadb) Sampler() telemetry.Sampler { return telemetry.Status }

// Start starts a throwaway MariaDB sized for o.Conns connections. Its
// load user (localdb.MariaDBLoadUser), which localdb makes with
// privileges on the run database alone, owns the workloads' data and
// every client session; the telemetry, the faults and the checks of the
// server go to it as root (Admin). Both verify the server against the
// run's CA.
func (mariadb) Start(ctx context.Context, sp target.Spec, o engine.StartOptions) (*engine.Server, error) {
	conf := engine.MaxConnections(o.Conf, o.Conns, 151, "max_connections", "max-connections")
	o.Say("starting a throwaway MariaDB")
	started := time.Now()
	m, err := localdb.StartMariaDB(ctx, localdb.MariaDBOptions{Conf: conf})
	if err != nil {
		return nil, err
	}
	o.Say(fmt.Sprintf("MariaDB %s ready on 127.0.0.1:%d in %.1f s", m.Version(), m.Port(), time.Since(started).Seconds()))
	return &engine.Server{
		Process: m, Admin: target.URLSpec(target.MySQLURL, m.URL()), Load: target.URLSpec(target.MySQLURL, m.LoadURL()),
		Shown: sp.String() + " (" + target.MaskURL(m.URL()) + ")", Port: m.Port(),
	}, nil
}

// probeWait bounds opening the server's own account for the faults.
const probeWait = 30 * time.Second

// TerminateSessions KILLs this process's sessions (the driver's
// target.SessionTerminator), as the server's own account when s.Server
// names it (temp-mariadb's root: its load user may not list the
// sessions).
func (mariadb) TerminateSessions(ctx context.Context, s engine.Sessions) (int64, error) {
	t := s.Clients
	if s.Server.URL != "" && s.Server.URL != s.Conn.URL {
		ctx, cancel := context.WithTimeout(ctx, probeWait)
		defer cancel()
		st, err := target.Open(ctx, s.Server)
		if err != nil {
			return 0, err
		}
		defer st.Close()
		t = st
	}
	term, ok := t.(target.SessionTerminator)
	if !ok {
		return 0, fmt.Errorf("%s cannot end sessions", t.Dialect().Name)
	}
	return term.TerminateSessions(ctx)
}

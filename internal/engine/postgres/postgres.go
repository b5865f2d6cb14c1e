// Package postgres is the PostgreSQL engine's server side: temp-postgres
// (a throwaway cluster of localdb's, its load role, --pg-conf and
// --pg-bin), the telemetry's statistics views, pg_terminate_backend for
// the faults. Its driver is internal/target/pg.
//
// A topology beyond one primary (--replicas: streaming standbys, issue
// 42) is started in Start, before the load role is made on the primary
// (the role reaches the standbys by replication), and described on
// Server (Replicas; Admin and Load follow the primary).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/telemetry"
)

func init() { engine.Register(postgres{}) }

type postgres struct{}

func (postgres) Name() string { return "postgres" }

func (postgres) Flags() engine.Flags { return engine.Flags{Settings: "pg-conf", Bin: "pg-bin"} }

func (postgres) Caps() engine.Caps {
	return engine.Caps{TLS: true, PgBouncer: true, Network: true, LibpqParams: true, RunTable: true, Replicas: true}
}

func (postgres) CheckBin(dir string) error {
	_, err := localdb.FindBinDir(dir)
	return err
}

func (postgres) Sampler() telemetry.Sampler { return telemetry.PgStat }

// probeWait bounds each short exchange with the server as it is set up.
const probeWait = 30 * time.Second

// LoadRole is the role txnbench's clients log in to its throwaway
// cluster as, directly or through its PgBouncer (and PgBouncer to the
// cluster): not a superuser, it owns the run database (so it creates the
// workloads' tables) and may reset its statistics; the telemetry, the
// faults and the workloads' background sessions go to the server
// directly as its superuser.
const LoadRole = "txnbench_load"

// Start starts a throwaway cluster (temp-postgres, temp-postgres@VERSION)
// with max_connections sized for o.Conns, with o.Replicas standbys, and
// makes the load role.
func (postgres) Start(ctx context.Context, sp target.Spec, o engine.StartOptions) (*engine.Server, error) {
	conf := engine.MaxConnections(o.Conf, o.Conns, 100, "max_connections")
	o.Say("starting a throwaway PostgreSQL")
	started := time.Now()
	bin := o.Bin
	var err error
	if bin == "" && sp.Version != "" {
		if bin, err = localdb.FindVersion(sp.Version); err != nil {
			return nil, err
		}
	}
	lo := localdb.Options{BinDir: bin, Conf: conf}
	if o.TLS {
		if lo.TLS, err = localdb.NewCA(); err != nil {
			return nil, err
		}
	}
	srv := &engine.Server{}
	adminURL := ""
	if o.Replicas > 0 {
		rs, err := localdb.StartReplicated(ctx, lo, o.Replicas, o.Replication)
		if err != nil {
			return nil, err
		}
		srv.Process, srv.Cluster, srv.Replicas, adminURL = rs, rs.Primary(), rs, rs.URL()
	} else {
		cl, err := localdb.Start(ctx, lo)
		if err != nil {
			return nil, err
		}
		srv.Process, srv.Cluster, adminURL = cl, cl, cl.URL()
	}
	admin := target.URLSpec(target.ServerURL, adminURL)
	load, verifier, err := createLoadRole(ctx, admin, o.Name)
	if err != nil {
		srv.Stop()
		return nil, err
	}
	cl := srv.Cluster
	srv.Admin, srv.Load, srv.LoadVerifier, srv.Port = admin, admin.WithURL(load), verifier, cl.Port()
	srv.Shown = target.TempPostgresSpec + " (" + target.MaskURL(adminURL) + ")"
	srv.PrepareTelemetry = func(ctx context.Context) string { return createStatements(ctx, admin) }
	took := time.Since(started).Seconds()
	if rs := srv.Replicas; rs != nil {
		var ports []string
		for _, n := range rs.Nodes()[1:] {
			ports = append(ports, strconv.Itoa(n.Port()))
		}
		o.Say(fmt.Sprintf("PostgreSQL %s ready: primary on 127.0.0.1:%d, standbys (%s) on ports %s, in %.1f s",
			cl.Version(), cl.Port(), rs.Mode(), strings.Join(ports, ", "), took))
	} else {
		o.Say(fmt.Sprintf("PostgreSQL %s ready on 127.0.0.1:%d in %.1f s", cl.Version(), cl.Port(), took))
	}
	return srv, nil
}

// createLoadRole creates LoadRole on the throwaway cluster, as its
// superuser (admin), with a password of its own, its sessions called name
// unless they say (PgBouncer's server connections then need no SET, which
// would be a transaction of its own in the server's xact_commit), and
// returns the URL of the run database as it and the password's SCRAM
// verifier, which the server stores.
func createLoadRole(ctx context.Context, admin target.Spec, name string) (load, verifier string, err error) {
	if name == "" || strings.ContainsAny(name, "'\\") {
		name = "txnbench"
	}
	pw, verifier, err := localdb.NewLogin()
	if err != nil {
		return "", "", err
	}
	u, err := url.Parse(admin.URL)
	if err != nil {
		return "", "", fmt.Errorf("%w %s", target.ErrMalformedURL, target.MaskURL(admin.URL))
	}
	err = withConn(ctx, admin, func(c target.Conn) error {
		for _, q := range []string{
			// the server's login is SCRAM only: so is the stored password
			"SET password_encryption = 'scram-sha-256'",
			// its verifier, which PgBouncer's auth file holds too: see
			// localdb.BouncerOptions.Verifier
			"CREATE ROLE " + LoadRole + " LOGIN NOSUPERUSER PASSWORD '" + verifier + "'", // base64 and $: nothing to quote
			"ALTER ROLE " + LoadRole + " SET application_name = '" + name + "'",          // quoted above
			"ALTER DATABASE postgres OWNER TO " + LoadRole,                               // the run database (Cluster.URL)
			"GRANT EXECUTE ON FUNCTION pg_stat_reset() TO " + LoadRole,                   // job.Isolate
		} {
			if _, err := c.Exec(ctx, q); err != nil {
				return fmt.Errorf("creating the load role %s: %s: %w", LoadRole, strings.Fields(q)[0], err)
			}
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	u.User = url.UserPassword(LoadRole, pw)
	return u.String(), verifier, nil
}

// createStatements installs pg_stat_statements in the throwaway
// cluster's run database (the server preloads it) and returns the note
// for when its statement times cannot be read after all.
func createStatements(ctx context.Context, admin target.Spec) string {
	err := withConn(ctx, admin, func(c target.Conn) error {
		_, err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
		return err
	})
	if err != nil {
		return "no statement times: CREATE EXTENSION pg_stat_statements failed: " + errclass.FirstLine(err)
	}
	return "no statement times: pg_stat_statements is not preloaded by this server build (is the postgresql-contrib package installed?)"
}

// withConn runs f on a session of its own at sp, within probeWait.
func withConn(ctx context.Context, sp target.Spec, f func(target.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	t, err := target.Open(ctx, sp)
	if err != nil {
		return err
	}
	defer t.Close()
	c, err := t.Connect(ctx)
	if err != nil {
		return target.ConnectError(target.MaskURL(sp.URL), err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	return f(c)
}

// TerminateSessions ends the sessions named s.Name in the run's database
// (this process's: another txnbench's are left alone) with
// pg_terminate_backend, on the server as s.Server's role.
func (postgres) TerminateSessions(ctx context.Context, s engine.Sessions) (int64, error) {
	if s.Server.URL == "" {
		return 0, errors.New("no server URL: give the server's with --db")
	}
	var n int64
	err := withConn(ctx, s.Server.WithParam("application_name", "txnbench-fault"), func(c target.Conn) error {
		return target.QueryRow(ctx, c, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database() AND pid <> pg_backend_pid()`, []any{s.Name}, &n)
	})
	return n, err
}

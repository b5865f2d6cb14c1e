package pooler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// Modes are PgBouncer's pool modes (pool_mode); the first is DefaultMode.
var Modes = []string{"transaction", "session", "statement"}

const (
	// DefaultMode is the pool mode of a PgBouncer txnbench starts when
	// none is given.
	DefaultMode = "transaction"
	// DefaultSize is its default_pool_size when none is given: the server
	// connections per database and user.
	DefaultSize = 20
	// ConsoleWait bounds each reading of an admin console, connecting
	// included: a pooler's console answers at once, so one that does not
	// within it is stuck (its process stopped or hung), and its callers go
	// on without it.
	ConsoleWait = 3 * time.Second
)

// DefaultMaxClientConn is a throwaway PgBouncer's max_client_conn when
// none is given, and the least MaxClientConn gives.
const DefaultMaxClientConn = 1000

// clientReserve is how many client connections a throwaway PgBouncer
// accepts beyond twice the run's: txnbench's own (the probe, the admin
// console, telemetry) and headroom.
const clientReserve = 100

// MaxClientConn is max_client_conn for a throwaway PgBouncer serving
// sessions client connections: twice as many, so that clients that
// reconnect (per-txn, retries after errors) never meet it while PgBouncer
// has not yet seen the closes of their old connections, and at least
// DefaultMaxClientConn. A connection slot costs PgBouncer a file
// descriptor and nothing else until it is used.
func MaxClientConn(sessions int) int {
	return max(2*sessions+clientReserve, DefaultMaxClientConn)
}

// MaxSize bounds a pool size: 16 poolers of it stay within PostgreSQL's
// 262143 connections.
const MaxSize = 10_000

// Mode is mode, or DefaultMode when it is "".
func Mode(mode string) string { return cmp.Or(mode, DefaultMode) }

// Size is size, or DefaultSize when it is 0.
func Size(size int) int { return cmp.Or(size, DefaultSize) }

// ModeList is Modes as a sentence: "transaction, session or statement".
func ModeList() string {
	return strings.Join(Modes[:len(Modes)-1], ", ") + " or " + Modes[len(Modes)-1]
}

// Check is the one check of a PgBouncer's pool mode and size (--pool-mode,
// --pgbouncer-pool-size), defaults already applied: the mode one of
// Modes, the size 1 to MaxSize.
func Check(mode string, size int) error {
	if !slices.Contains(Modes, mode) {
		return fmt.Errorf("unknown --pool-mode %q: choose %s", mode, ModeList())
	}
	if size < 1 || size > MaxSize {
		return fmt.Errorf("--pgbouncer-pool-size %d: give 1 to %d (PostgreSQL takes at most 262143 connections in all)", size, MaxSize)
	}
	return nil
}

// Console opens a pooler's admin console (PgBouncer's: SHOW STATS, SHOW
// POOLS, RECONNECT; the simple query protocol only) for the driver that
// speaks its protocol: Open reads adminURL once, a malformed one an error
// then, and returns the console's Admin, which its readings go through.
type Console interface {
	Open(adminURL string) (Admin, error)
}

// Admin is one pooler's admin console, its URL read: Rows runs one
// statement on it and returns its rows as text, giving up after
// ConsoleWait (an error of class timeout) or with ctx. It keeps one
// session across readings (the first reading opens it) and opens another
// when that one is lost (the pooler restarted): one login per console per
// run, not one per reading. Safe for concurrent use (the readings take
// turns); Close ends the session, and the readings under way or waiting
// with it (they fail at once).
type Admin interface {
	Rows(ctx context.Context, sql string) ([]map[string]string, error)
	Close()
}

var console struct {
	sync.RWMutex
	c Console
}

// RegisterConsole makes c the opener of every admin console; a driver
// registers it from its init.
func RegisterConsole(c Console) {
	console.Lock()
	defer console.Unlock()
	console.c = c
}

// errNoConsole is the error of opening a console with no Console
// registered.
var errNoConsole = errors.New("no driver reads a pooler's admin console: import internal/target/drivers")

// Open opens the admin console at adminURL through the registered
// Console: its URL is read now, once; no session opens until a reading.
func Open(adminURL string) (Admin, error) {
	console.RLock()
	c := console.c
	console.RUnlock()
	if c == nil {
		return nil, errNoConsole
	}
	return c.Open(adminURL)
}

// consoleDB is the admin console's own database, whose rows the readings
// leave out.
const consoleDB = "pgbouncer"

// Stats reads a pooler's SHOW STATS totals (total_* columns), summed over
// its databases, the admin console's own row left out.
func Stats(ctx context.Context, a Admin) (map[string]int64, error) {
	rs, err := a.Rows(ctx, "SHOW STATS")
	if err != nil {
		return nil, err
	}
	totals := map[string]int64{}
	for _, row := range rs {
		if row["database"] == consoleDB {
			continue
		}
		for k, v := range row {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && len(k) > 6 && strings.HasPrefix(k, "total_") {
				totals[k] += n
			}
		}
	}
	return totals, nil
}

// Pools reads a pooler's SHOW POOLS, the admin console's own pool left
// out; the rows read before an error come with it.
func Pools(ctx context.Context, a Admin) ([]map[string]string, error) {
	rs, err := a.Rows(ctx, "SHOW POOLS")
	var out []map[string]string
	for _, row := range rs {
		if row["database"] != consoleDB {
			out = append(out, row)
		}
	}
	return out, err
}

// Servers reads a pooler's SHOW SERVERS: its server connections.
func Servers(ctx context.Context, a Admin) ([]map[string]string, error) {
	return a.Rows(ctx, "SHOW SERVERS")
}

// Reconnect makes a pooler close each server connection once it is
// released (RECONNECT).
func Reconnect(ctx context.Context, a Admin) error {
	_, err := a.Rows(ctx, "RECONNECT")
	return err
}

// ProxyServers is HAProxy's view of the poolers behind it during a run:
// each server's counters' change between two readings of its statistics
// (before and after, one row per server in the same order) and its status
// after. restarted reports that a counter went down: the proxy restarted,
// and its counts are since then.
func ProxyServers(before, after []map[string]string) (servers []result.ProxyServer, restarted bool) {
	for i, row := range after {
		var was map[string]string
		if i < len(before) {
			was = before[i]
		}
		delta := func(k string) int64 {
			a, _ := strconv.ParseInt(row[k], 10, 64)
			b, _ := strconv.ParseInt(was[k], 10, 64)
			if a < b { // it restarted: its counters began again
				restarted = true
				return a
			}
			return a - b
		}
		servers = append(servers, result.ProxyServer{
			Name: row["svname"], Status: row["status"], Sessions: delta("stot"),
			ConnectErrors: delta("econ"), Redispatched: delta("wredis"),
			FailedChecks: delta("chkfail"), Downs: delta("chkdown"),
		})
	}
	return servers, restarted
}

package pooler_test

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/result"
)

// TestProxyServers: each server's counters are the change between the
// readings; a counter that went down means HAProxy restarted, and that
// server's count is then the new reading, flagged.
func TestProxyServers(t *testing.T) {
	before := []map[string]string{
		{"svname": "pooler1", "status": "UP", "stot": "10", "econ": "1", "wredis": "0", "chkfail": "0", "chkdown": "0"},
		{"svname": "pooler2", "status": "UP", "stot": "7", "econ": "0", "wredis": "0", "chkfail": "0", "chkdown": "0"},
	}
	after := []map[string]string{
		{"svname": "pooler1", "status": "UP", "stot": "25", "econ": "1", "wredis": "2", "chkfail": "1", "chkdown": "0"},
		{"svname": "pooler2", "status": "DOWN", "stot": "7", "econ": "3", "wredis": "0", "chkfail": "4", "chkdown": "1"},
	}
	got, restarted := pooler.ProxyServers(before, after)
	want := []result.ProxyServer{
		{Name: "pooler1", Status: "UP", Sessions: 15, Redispatched: 2, FailedChecks: 1},
		{Name: "pooler2", Status: "DOWN", ConnectErrors: 3, FailedChecks: 4, Downs: 1},
	}
	if restarted || len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("ProxyServers = %+v, restarted %v; want %+v, not restarted", got, restarted, want)
	}
	after[1]["stot"] = "2" // below 7: the proxy began counting again
	got, restarted = pooler.ProxyServers(before, after)
	if !restarted || got[1].Sessions != 2 {
		t.Errorf("after a restart: %+v, restarted %v; want pooler2's 2 sessions, restarted", got[1], restarted)
	}
}

// TestReadingWithoutConsole: with no driver linked to read a console,
// opening one (and so watching a pooler) says which package to import
// instead of failing obscurely.
func TestReadingWithoutConsole(t *testing.T) {
	const u = "postgres://u@127.0.0.1:1/pgbouncer"
	_, err := pooler.Open(u)
	w, werr := pooler.Watch(pooler.Poolers{AdminURL: u})
	for _, err := range []error{err, werr} {
		if err == nil || !strings.Contains(err.Error(), "import internal/target/drivers") {
			t.Errorf("without a console: %v; want the package to import", err)
		}
	}
	if w != nil {
		t.Errorf("Watch without a console gave a watcher")
	}
}

// TestDefaults: Mode and Size fill in PgBouncer's defaults, and the
// default mode is the first of Modes.
func TestDefaults(t *testing.T) {
	if pooler.Mode("") != pooler.DefaultMode || pooler.Mode("session") != "session" || pooler.Modes[0] != pooler.DefaultMode {
		t.Errorf("Mode: %q, %q; Modes %v", pooler.Mode(""), pooler.Mode("session"), pooler.Modes)
	}
	if pooler.Size(0) != pooler.DefaultSize || pooler.Size(5) != 5 {
		t.Errorf("Size: %d, %d", pooler.Size(0), pooler.Size(5))
	}
}

// TestMaxClientConn: the throwaway PgBouncer's max_client_conn leaves
// room for every client to hold an old and a new connection at once, and
// is never below the default.
func TestMaxClientConn(t *testing.T) {
	for sessions, want := range map[int]int{1: 1000, 450: 1000, 1000: 2100, 5000: 10100} {
		if got := pooler.MaxClientConn(sessions); got != want {
			t.Errorf("MaxClientConn(%d) = %d, want %d", sessions, got, want)
		}
	}
}

package job

import (
	"context"
	"sync/atomic"

	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/workload"
)

// startBackground starts the workload's own work beside the clients
// (workload.Backgrounder), with sessions as the clients get theirs and,
// for what needs a session of its own (LISTEN), the server's: through a
// pooler, straight to the server behind it (serverURL). stop ends that
// work and closes what was opened for it.
func startBackground(ctx context.Context, s Spec, db *Database) (stop func(), err error) {
	b, ok := s.Workload.(workload.Backgrounder)
	if !ok {
		return func() {}, nil
	}
	env := workload.BackgroundEnv{Connect: db.Connect, Session: db.Connect}
	if db.poolerName == "" {
		return b.Background(ctx, env)
	}
	u := db.serverURL(s)
	if u == "" {
		env.Session, env.NoSession = nil, "the pooler URL given to --via is not the server (give the server's URL with --db too)"
		return b.Background(ctx, env)
	}
	server, err := openTarget(ctx, u)
	if err != nil {
		return nil, err
	}
	env.Session = server.Connect
	stopWork, err := b.Background(ctx, env)
	if err != nil {
		server.Close()
		return nil, err
	}
	return func() { stopWork(); server.Close() }, nil
}

// backgroundSessions is how many sessions w's background work opens at
// most, 0 without any.
func backgroundSessions(w workload.Workload) int {
	if b, ok := w.(workload.Backgrounder); ok {
		return b.BackgroundSessions()
	}
	return 0
}

// windowNotifications counts the notifications w's LISTEN session
// (workload.Notified) receives from the window's start, as the server's
// counters do: its observer reads the count as the window opens. The
// returned func, called once the background work has stopped, is how many
// came since; 0 for a workload without one (whose observer is nil), or a
// run whose window never opened.
func windowNotifications(w workload.Workload) (runner.Observer, func() int64) {
	n, ok := w.(workload.Notified)
	if !ok {
		return nil, func() int64 { return 0 }
	}
	var at atomic.Int64
	opened := atomic.Bool{}
	o := runner.Funcs{OnStart: func() { at.Store(n.Notifications()); opened.Store(true) }}
	return o, func() int64 {
		if !opened.Load() {
			return 0
		}
		return n.Notifications() - at.Load()
	}
}

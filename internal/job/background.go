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
	u := db.serverSpec(s)
	if u.URL == "" {
		env.Session, env.NoSession = nil, "the pooler URL given to --via is not the server (give the server's URL with --db too)"
		return b.Background(ctx, env)
	}
	server, err := openSpec(ctx, u)
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

// windowUnrecorded counts what w's sessions commit beside its ops
// (workload.Unrecorder) from the window's start, as the server's counters
// do: its observer reads the count as the window opens. The returned
// func, called once the background work has stopped, is what was
// committed since: zero for a workload without such commits (whose
// observer is nil), or a run whose window never opened.
func windowUnrecorded(w workload.Workload) (runner.Observer, func() workload.Unrecorded) {
	u, ok := w.(workload.Unrecorder)
	if !ok {
		return nil, func() workload.Unrecorded { return workload.Unrecorded{} }
	}
	var at atomic.Pointer[workload.Unrecorded]
	o := runner.Funcs{OnStart: func() { now := u.Unrecorded(); at.Store(&now) }}
	return o, func() workload.Unrecorded {
		if p := at.Load(); p != nil {
			return u.Unrecorded().Sub(*p)
		}
		return workload.Unrecorded{}
	}
}

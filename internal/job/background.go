package job

import (
	"context"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/workload"
)

// startBackground starts the workload's own work beside the clients
// (workload.Backgrounder), with sessions as the clients get theirs and,
// for what needs a session of its own (LISTEN), the server's: straight to
// the server behind a throwaway PgBouncer. stop ends that work and closes
// what was opened for it.
func startBackground(ctx context.Context, s Spec, db *Database) (stop func(), err error) {
	b, ok := s.Workload.(workload.Backgrounder)
	if !ok {
		return func() {}, nil
	}
	env := workload.BackgroundEnv{Connect: db.Connect}
	switch {
	case db.direct != "":
		server, err := target.Open(ctx, db.direct)
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
	case db.poolerName != "":
		env.NoSession = "the clients go through " + db.poolerName + " and txnbench does not know the server behind it"
	default:
		env.Session = db.Connect
	}
	return b.Background(ctx, env)
}

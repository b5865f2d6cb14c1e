package job

import (
	"context"
	"errors"
	"time"

	"github.com/txnbench/txnbench/internal/runner"
)

// ErrStatsNotReset is Isolate's answer when the role may not reset the
// server's statistics (pg_stat_reset is for superusers unless granted):
// the database is otherwise isolated, and each run's telemetry compares
// its own snapshots from before and after, so the caller notes it and
// goes on.
var ErrStatsNotReset = errors.New("this role may not reset the server's statistics")

// statsNotReset settles as Isolate would, then reports ErrStatsNotReset.
func statsNotReset(ctx context.Context, settle time.Duration) error {
	if err := runner.Sleep(ctx, settle); err != nil {
		return err
	}
	return ErrStatsNotReset
}

package job

import (
	"context"
	"errors"
	"time"
)

// interruptWait is how long what follows a run (telemetry's finish, the
// pooler's counters, the invariant check) may still take once the run was
// interrupted, whatever the server does.
const interruptWait = 2 * time.Second

// errNoAnswer is why work after an interrupt was cut short.
var errNoAnswer = errors.New("the server did not answer within 2 s")

// windDown returns the context for the work after a run: it is cancelled,
// with errNoAnswer as its cause, interruptWait after ctx is (ctx may
// already be), and by the returned stop.
func windDown(ctx context.Context) (context.Context, func()) {
	w, cancel := context.WithCancelCause(context.Background())
	stop := context.AfterFunc(ctx, func() {
		time.AfterFunc(interruptWait, func() { cancel(errNoAnswer) })
	})
	return w, func() {
		stop()
		cancel(nil)
	}
}

package job

import (
	"context"
	"fmt"
	"time"

	"github.com/txnbench/txnbench/internal/target"
)

// interruptWait is the one budget of everything that follows an interrupt,
// counted from the interrupt itself: the clients' stop, the telemetry's
// finish, the pooler's counters, the invariant check and the run table's
// last word share it, whatever the server does (frozen, killed, slow), so
// that the results are printed and saved within 3 s of Ctrl-C. No step
// after an interrupt has a timeout of its own beyond it.
const interruptWait = 2 * time.Second

// probeWait bounds each short exchange with a server around a run
// (naming its sessions, installing an extension): a server that does not
// answer within it is reported, not waited for.
const probeWait = 30 * time.Second

// openSpec is target.Open within probeWait: its connecting has the
// target's connect timeout, the version read that follows none of its own.
func openSpec(ctx context.Context, sp target.Spec) (target.Target, error) {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	return target.Open(ctx, sp)
}

// errNoAnswer is why work after an interrupt was cut short.
var errNoAnswer = fmt.Errorf("the server did not answer within %v", interruptWait)

// errNoTelemetry is why the telemetry's final readings were cut short
// after an interrupt.
var errNoTelemetry = fmt.Errorf("the server did not answer within %v", telemetryWait)

// telemetryWait is the telemetry's share of interruptWait: its final
// readings are the least of what follows an interrupt (the last sample
// stands in for them), the invariant check the most.
const telemetryWait = interruptWait / 4

// telemetryCtx bounds the telemetry's final readings: after an interrupt
// (run is done) to telemetryWait, so that the invariant check keeps the
// rest, whatever the telemetry's session waits for.
func telemetryCtx(run, wctx context.Context) (context.Context, context.CancelFunc) {
	if run.Err() != nil {
		return context.WithTimeoutCause(wctx, telemetryWait, errNoTelemetry)
	}
	return context.WithTimeout(wctx, 30*time.Second)
}

// windDown returns the context for the work after a run: it is cancelled,
// with errNoAnswer as its cause, interruptWait after ctx is (ctx may
// already be), and by the returned stop. Made as the run begins, its clock
// starts with the interrupt, not with the first step that waits.
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

// within runs f and waits for it until ctx is done (the wind-down's end,
// after an interrupt): what f still waits for then (closing sessions whose
// cancel requests a frozen server never answers) goes on without the run.
func within(ctx context.Context, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

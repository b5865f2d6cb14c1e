package runner

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/txnbench/txnbench/internal/result"
)

// intervalCount sums an op's counts over the intervals.
func intervalCount(out *Outcome, name string) int64 {
	var n int64
	for _, iv := range out.Intervals {
		for _, o := range iv.Ops {
			if o.Name == name {
				n += o.Count
			}
		}
	}
	return n
}

// TestOneWindow: ops completing in the grace period keep their latency
// but are neither in the count nor in an interval; the last interval ends
// with the window.
func TestOneWindow(t *testing.T) {
	w := &counterWorkload{pause: time.Millisecond, opTime: 150 * time.Millisecond}
	cfg := baseConfig()
	cfg.Duration = 400 * time.Millisecond
	cfg.Progress = 300 * time.Millisecond
	cfg.Grace = 5 * time.Second
	out := mustRun(t, cfg, w)
	last := out.Intervals[len(out.Intervals)-1]
	if math.Abs(last.ElapsedS-out.Measured.Seconds()) > 0.001 {
		t.Errorf("last interval ends at %.4f s, the window at %.4f s", last.ElapsedS, out.Measured.Seconds())
	}
	for _, name := range []string{"bump", result.CycleOp} {
		o := op(t, out, name)
		if n := intervalCount(out, name); n != o.Count {
			t.Errorf("%s: intervals hold %d, count %d", name, n, o.Count)
		}
		// Clients were in an op when the window closed (ops take 150 ms,
		// the window 400): those finished in the grace period.
		if o.AfterWindow == 0 || o.AfterWindow > int64(cfg.Clients) || o.Hist.Count() != o.Count+o.AfterWindow {
			t.Errorf("%s: %d after the window, histogram %d, count %d; want 1-%d after", name, o.AfterWindow, o.Hist.Count(), o.Count, cfg.Clients)
		}
		if o.Unfinished != 0 {
			t.Errorf("%s: %d unfinished with a long grace period", name, o.Unfinished)
		}
	}
}

// TestUnfinishedOps: ops still running when the grace period ends are
// counted unfinished with how long they had run, not dropped; a window
// without a completion in its last 5 s says it stalled.
func TestUnfinishedOps(t *testing.T) {
	w := &counterWorkload{opTime: time.Hour}
	cfg := baseConfig()
	cfg.Duration = result.StallAfter + 200*time.Millisecond
	cfg.Grace = 100 * time.Millisecond
	// Run returns only if the hour-long ops are cancelled after the grace.
	out := mustRun(t, cfg, w)
	for _, name := range []string{"bump", result.CycleOp} {
		o := op(t, out, name)
		if o.Unfinished != int64(cfg.Clients) || o.Count != 0 || o.ErrorCount() != 0 {
			t.Errorf("%s: %d unfinished, %d completed, %d errors; want %d unfinished", name, o.Unfinished, o.Count, o.ErrorCount(), cfg.Clients)
		}
		if lower := (cfg.Duration + cfg.Grace).Seconds() * 1000; o.UnfinishedMaxMS < lower {
			t.Errorf("%s: unfinished max %.1f ms, want at least %.0f", name, o.UnfinishedMaxMS, lower)
		}
	}
	if s := out.Stalled; s == nil || s.Clients != cfg.Clients || s.SinceS != 0 {
		t.Errorf("stalled %+v, want %d clients since 0 s", s, cfg.Clients)
	}
}

// TestNoSliverAtTheWindowEnd: with the duration a multiple of the progress
// interval, the tick due at the window's end and the window's close would
// both end an interval; the window's close takes it, so the last interval is
// a whole one and no progress label repeats.
func TestNoSliverAtTheWindowEnd(t *testing.T) {
	w := &counterWorkload{pause: time.Millisecond, opTime: time.Millisecond}
	cfg := baseConfig()
	cfg.Progress = 100 * time.Millisecond
	cfg.Duration = 3 * cfg.Progress
	out := mustRun(t, cfg, w)
	if n := len(out.Intervals); n != 3 {
		for _, iv := range out.Intervals {
			t.Logf("interval ending at %.4f s, %.4f s long", iv.ElapsedS, iv.LengthS)
		}
		t.Fatalf("%d intervals, want 3", n)
	}
	if last := out.Intervals[2]; last.LengthS < cfg.Progress.Seconds()/2 {
		t.Errorf("last interval %.4f s long, want about %.1f s", last.LengthS, cfg.Progress.Seconds())
	}
}

// TestCycleAndOpInOneInterval: a cycle of one op is the same transaction
// as its op, so every interval counts as many of each (a tick used to fall
// between the op's sample and the cycle's, splitting them).
func TestCycleAndOpInOneInterval(t *testing.T) {
	cfg := baseConfig()
	cfg.Clients = 8
	cfg.Duration = 600 * time.Millisecond
	cfg.Progress = 10 * time.Millisecond
	out, err := Run(context.Background(), cfg, openSQLite(t), &counterWorkload{})
	if err != nil {
		t.Fatal(err)
	}
	for i, iv := range out.Intervals {
		var bump, cycle int64
		for _, o := range iv.Ops {
			switch o.Name {
			case "bump":
				bump = o.Count
			case result.CycleOp:
				cycle = o.Count
			}
		}
		if bump != cycle {
			t.Errorf("interval %d: %d bumps, %d cycles", i, bump, cycle)
		}
	}
}

// TestRetriesAndErrorsAfterTheWindow: an op in flight when the window
// closes can retry or fail in the grace period; those are counted after
// the window, so the intervals' retries and errors add up to the op's
// (a run's progress said 3 retries and its table 4).
func TestRetriesAndErrorsAfterTheWindow(t *testing.T) {
	for _, tries := range []int{3, 1} {
		// Every odd attempt fails with a deadlock after 150 ms: with 3
		// tries it is retried, with 1 it is an error.
		w := &counterWorkload{opTime: 150 * time.Millisecond, failErr: &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}, failEvery: 2, failLate: true}
		cfg := baseConfig()
		cfg.MaxTries = tries
		cfg.Duration = 400 * time.Millisecond
		cfg.Progress = 100 * time.Millisecond
		cfg.Grace = 5 * time.Second
		out := mustRun(t, cfg, w)
		b := op(t, out, "bump")
		var retries, errs int64
		for _, iv := range out.Intervals {
			for _, o := range iv.Ops {
				if o.Name == "bump" {
					retries, errs = retries+o.Retries, errs+o.Errors
				}
			}
		}
		if retries != b.Retries || errs != b.ErrorCount() {
			t.Errorf("%d tries: the intervals add up to %d retries and %d errors, the op has %d and %d", tries, retries, errs, b.Retries, b.ErrorCount())
		}
		// Every client was in an op when the window closed: some attempt
		// of theirs failed after it (the failure this test plants).
		after := b.AfterWindowRetries
		if tries == 1 {
			after = 0
			for _, n := range b.AfterWindowErrors {
				after += n
			}
		}
		if most := int64(tries * cfg.Clients); after == 0 || after > most {
			t.Errorf("%d tries: %d retries and %v errors after the window; want 1-%d", tries, b.AfterWindowRetries, b.AfterWindowErrors, most)
		}
	}
}

package fault

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/runner"
)

// TestRecovery feeds a schedule the cycles of a made-up outage: 20 a
// second, none from the fault at 2 s until 3 s (one fails), then 20 a
// second again; the figures follow from them exactly.
func TestRecovery(t *testing.T) {
	s := New([]Spec{{At: 2 * time.Second, Kind: Reset}}, nil, 10*time.Second, true)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	s.t0.Store(t0.UnixNano())
	s.fired[0].Store(at(2 * time.Second).UnixNano())
	s.end.Store(at(6 * time.Second).UnixNano())
	s.done[0], s.faults[0].LastedS = true, 0.5
	var logged []string
	s.Log = func(msg string) { logged = append(logged, msg) }
	cycle := s.OnCycle(nil)
	ok := func(end time.Duration) {
		cycle(runner.CycleEvent{Start: at(end - 10*time.Millisecond), Latency: 10 * time.Millisecond})
	}
	for d := 25 * time.Millisecond; d < 2*time.Second; d += 50 * time.Millisecond {
		ok(d)
	}
	cycle(runner.CycleEvent{Start: at(1990 * time.Millisecond), Latency: 110 * time.Millisecond, Err: io.ErrUnexpectedEOF})
	for d := 3050 * time.Millisecond; d < 6*time.Second; d += 50 * time.Millisecond {
		ok(d)
	}
	cycle(runner.CycleEvent{Start: at(5 * time.Second), Skipped: true})
	// The first success after the fault is said once, as it happens: what
	// a test (or a person) watching the run waits for.
	if want := "fault at 2.0 s (reset): a cycle begun after it succeeded 1.05 s after it"; len(logged) != 1 || logged[0] != want {
		t.Errorf("logged %q, want just %q", logged, want)
	}
	fs := s.Faults(context.Background(), &result.Result{Invariants: &result.Check{OK: true, UnknownCommits: 2}})
	rc := fs[0].Recovery
	if rc == nil || rc.FirstOKS == nil || rc.ThroughputS == nil || rc.Reconnects == nil || rc.UnknownCommits == nil {
		t.Fatalf("missing figures: %+v", rc)
	}
	want := result.Recovery{BaselinePerS: 20, OutageS: 2, Errors: map[string]int64{"connection_lost": 1}, Invariants: "OK"}
	if *rc.FirstOKS != 1.05 || *rc.ThroughputS != 1.05 || rc.BaselinePerS != want.BaselinePerS || rc.OutageS != want.OutageS ||
		len(rc.Errors) != 1 || rc.Errors["connection_lost"] != 1 || *rc.Reconnects != 0 || *rc.UnknownCommits != 2 || rc.Invariants != "OK" || rc.Note != "" {
		t.Errorf("first ok %v, throughput %v, got %+v; want %+v", *rc.FirstOKS, *rc.ThroughputS, *rc, want)
	}
}

// TestNotInjected: a fault whose time never came is on the timeline,
// saying so, without recovery figures.
func TestNotInjected(t *testing.T) {
	s := New([]Spec{{At: time.Hour, Kind: Reset}}, func(context.Context, Spec) (string, string) {
		t.Error("injected")
		return "", ""
	}, 2*time.Hour, false)
	obs := s.Observer()
	obs.Start()
	obs.WindowEnd()
	fs := s.Faults(context.Background(), nil)
	if len(fs) != 1 || fs[0].Recovery != nil || fs[0].Note != "not injected: the window ended first" {
		t.Errorf("%+v", fs)
	}
}

// TestLongWindow: a window of years (--duration 2000000h) keeps per-step
// counts only up to an hour after the last fault (it ran out of memory
// making one per 100 ms of the window), and a fault not recovered by then
// says how far it was followed.
func TestLongWindow(t *testing.T) {
	s := New([]Spec{{At: 2 * time.Second, Kind: Reset}}, nil, 2000000*time.Hour, true)
	if want := int((2*time.Second+followSpan)/step) + 1; len(s.ok) != want {
		t.Fatalf("%d steps counted, want %d", len(s.ok), want)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.t0.Store(t0.UnixNano())
	s.fired[0].Store(t0.Add(2 * time.Second).UnixNano())
	s.end.Store(t0.Add(48 * time.Hour).UnixNano())
	s.done[0] = true
	cycle := s.OnCycle(nil)
	for d := 25 * time.Millisecond; d < 2*time.Second; d += 50 * time.Millisecond {
		cycle(runner.CycleEvent{Start: t0.Add(d), Latency: time.Millisecond})
	}
	cycle(runner.CycleEvent{Start: t0.Add(2 * time.Hour), Latency: time.Millisecond}) // past what is counted
	rc := s.Faults(context.Background(), nil)[0].Recovery
	if rc == nil || rc.ThroughputS != nil || rc.Note != "throughput did not come back to 90% of the baseline before an hour after the last fault (as far as it is followed)" ||
		rc.OutageS != followSpan.Seconds() {
		t.Errorf("%+v", rc)
	}
}

// TestFaultUnderWayIsNotWaitedFor: a fault whose injection does not end
// (a killed server's restart that never comes back, ignoring the window's
// end) is reported as under way once the caller's context is done, where
// Faults waited for it.
func TestFaultUnderWayIsNotWaitedFor(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	injected := make(chan struct{})
	s := New([]Spec{{Kind: KillServer}}, func(context.Context, Spec) (string, string) {
		close(injected)
		<-release
		return "server", ""
	}, 10*time.Second, true)
	s.Observer().Start()
	<-injected
	s.Observer().WindowEnd()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if s.Wait(ctx) {
		t.Fatal("Wait says every fault is over while one is being injected")
	}
	fs := s.Faults(ctx, nil)
	if len(fs) != 1 || fs[0].Note != UnderWay || fs[0].Recovery == nil {
		t.Fatalf("faults %+v, want one noted %q with what followed it", fs, UnderWay)
	}
}

package result

// Fault is one fault on a run's timeline: one txnbench injected (--fault)
// or one it found (a server or pooler it started died unasked and was
// restarted by its supervision).
type Fault struct {
	// AtS is when it happened, in seconds since the measured window
	// started (negative: before the window).
	AtS  float64 `json:"at_s"`
	Kind string  `json:"kind"` // kill-server, restart-server, hang-server, terminate-backends, kill-pooler, ...
	Arg  string  `json:"arg,omitempty"`
	// Target names what it hit: "server", "pooler 2 of 3", ...
	Target string `json:"target,omitempty"`
	// Injected is false for a fault txnbench found rather than caused.
	Injected bool `json:"injected"`
	// Note says what txnbench did about it or could not do.
	Note string `json:"note,omitempty"`
	// LastedS is how long the fault lasted: until the server or pooler
	// was back, the hang or black hole lifted, the backends terminated.
	LastedS float64 `json:"lasted_s,omitempty"`
	// Recovery is what the workload saw after it; nil when it was not
	// measured (the fault was never injected).
	Recovery *Recovery `json:"recovery,omitempty"`
}

// Recovery is what followed a fault, measured from the cycles that
// completed around it (in 100 ms steps).
type Recovery struct {
	// FirstOKS is the time from the fault until the first cycle started
	// after it succeeded; nil when none did before the run ended.
	FirstOKS *float64 `json:"first_ok_s"`
	// ThroughputS is the time from the fault until the start of the
	// first second (starting in the 100 ms step of the first success or
	// later) in which successful cycles reached 90% of BaselinePerS;
	// nil when that did not happen before the next fault or the window's
	// end, or there was no baseline.
	ThroughputS *float64 `json:"throughput_s"`
	// BaselinePerS is successful cycles per second in the (up to) 10 s
	// before the fault, since the fault before recovered; within a second
	// of that, the fault before's baseline; 0 when there is none.
	BaselinePerS float64 `json:"baseline_per_s"`
	// OutageS is the span the errors and reconnects are counted in: from
	// the fault until it ended, an op succeeded and the first second back
	// at 90% throughput ended; at most until the next fault or the
	// window's end.
	OutageS float64 `json:"outage_s"`
	// Errors are the failed cycles in the outage by error class.
	Errors map[string]int64 `json:"errors,omitempty"`
	// Reconnects are the sessions clients opened in the outage (with
	// --conn session: each replaces one that broke); nil with per-txn or
	// pool connections, where they are not counted.
	Reconnects *int64 `json:"reconnects,omitempty"`
	// UnknownCommits are the commits whose outcome the client could not
	// learn (the workload's count), when the run had this one fault;
	// nil with several faults, whose shares cannot be told apart.
	UnknownCommits *int64 `json:"unknown_commits,omitempty"`
	// Invariants is the run's check after the fault, as Check.Status says
	// it: OK, VIOLATED or not checked.
	Invariants string `json:"invariants"`
	// Note says why a figure is missing.
	Note string `json:"note,omitempty"`
}

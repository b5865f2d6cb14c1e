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
}

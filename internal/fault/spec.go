package fault

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Kind is what a fault does.
type Kind string

// The kinds of fault.
const (
	KillServer        Kind = "kill-server"        // SIGKILL the postmaster; restart it after ARG (default at once)
	RestartServer     Kind = "restart-server"     // immediate-mode shutdown, then start again
	HangServer        Kind = "hang-server"        // SIGSTOP the server's processes for ARG, then SIGCONT
	TerminateBackends Kind = "terminate-backends" // pg_terminate_backend on the run's sessions
	KillPooler        Kind = "kill-pooler"        // SIGKILL a PgBouncer txnbench started; restart after ARG, or not
	Latency           Kind = "latency"            // add ARG=DELAY[/FOR] to every request on its way to the server
	Blackhole         Kind = "blackhole"          // nothing passes between clients and server for ARG
	Reset             Kind = "reset"              // every client connection is reset
	Failover          Kind = "failover"           // SIGKILL the primary, promote the most advanced standby, fence the old primary
	Switchover        Kind = "switchover"         // fast shutdown of the primary (its WAL sent to the standbys), then promote one
)

// Kinds lists every kind, for help and errors.
var Kinds = []Kind{KillServer, RestartServer, HangServer, TerminateBackends, KillPooler, Latency, Blackhole, Reset, Failover, Switchover}

// Needs is what a kind of fault acts on.
type Needs int

// What faults act on.
const (
	NeedsServer   Needs = iota // a throwaway server txnbench started (temp-postgres)
	NeedsPooler                // a throwaway PgBouncer txnbench started (--via pgbouncer)
	NeedsSQL                   // a PostgreSQL server to connect to (any URL the role may terminate sessions on)
	NeedsNetwork               // a PostgreSQL-wire connection to put the fault proxy in
	NeedsReplicas              // a throwaway primary with standbys (temp-postgres --replicas)
)

// Needs says what the kind acts on.
func (k Kind) Needs() Needs {
	switch k {
	case KillServer, RestartServer, HangServer:
		return NeedsServer
	case KillPooler:
		return NeedsPooler
	case TerminateBackends:
		return NeedsSQL
	case Failover, Switchover:
		return NeedsReplicas
	}
	return NeedsNetwork
}

// thing is what the kind's fault is on, for the one-at-a-time rule: the
// server (terminate-backends included: its sessions are the server's, and
// a server that is down, hung or restarting has none to terminate; a
// failover or switchover too: it changes which server that is), the
// pooler or the network path.
func (k Kind) thing() Needs {
	if n := k.Needs(); n != NeedsSQL && n != NeedsReplicas {
		return n
	}
	return NeedsServer
}

// Spec is one --fault.
type Spec struct {
	At   time.Duration // since the measured window opened
	Kind Kind
	Arg  string // as given
	// For is how long the fault lasts: a hang, a black hole, added
	// latency (0: until the window ends).
	For time.Duration
	// Delay is the added latency, or how long a killed server or pooler
	// stays down before it is restarted.
	Delay time.Duration
	// Restart is whether a killed pooler is restarted (after Delay).
	Restart bool
}

// String is the spec as --fault takes it.
func (s Spec) String() string {
	return fmt.Sprintf("%s:%s", s.At, s.Name())
}

// Name is the fault without its time: KIND[:ARG].
func (s Spec) Name() string {
	if s.Arg == "" {
		return string(s.Kind)
	}
	return string(s.Kind) + ":" + s.Arg
}

// End is when the fault is over, measured like At; 0 for added latency
// without a FOR, which lasts until the window ends.
func (s Spec) End() time.Duration {
	switch {
	case s.Kind == Latency && s.For == 0:
		return 0
	case s.Kind == KillServer, s.Kind == KillPooler:
		return s.At + s.Delay
	}
	return s.At + s.For
}

// Parse reads AT:KIND[:ARG], e.g. 10s:kill-server:2s, 5s:latency:50ms/3s.
// Its errors say what is wrong and name the fix.
func Parse(v string) (Spec, error) {
	parts := strings.SplitN(v, ":", 3)
	bad := func(format string, a ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("--fault %q: "+format, append([]any{v}, a...)...)
	}
	if len(parts) < 2 {
		return bad("want AT:KIND[:ARG], e.g. 10s:kill-server:2s")
	}
	at, err := time.ParseDuration(parts[0])
	if err != nil || at < 0 {
		return bad("AT %q is not a duration from the window's start: give e.g. 10s", parts[0])
	}
	s := Spec{At: at, Kind: Kind(parts[1])}
	if len(parts) == 3 {
		s.Arg = parts[2]
		if s.Arg == "" {
			return bad("empty ARG: leave out the last colon or give a duration")
		}
	}
	dur := func(what, arg string) (time.Duration, error) {
		d, err := time.ParseDuration(arg)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("--fault %q: %s %q is not a duration: give e.g. 5s", v, what, arg)
		}
		return d, nil
	}
	switch s.Kind {
	case KillServer:
		if s.Arg != "" {
			if s.Delay, err = dur("the time the server stays down", s.Arg); err != nil {
				return Spec{}, err
			}
		}
	case KillPooler:
		if s.Arg != "" {
			if s.Delay, err = dur("the time the pooler stays down", s.Arg); err != nil {
				return Spec{}, err
			}
			s.Restart = true
		}
	case RestartServer, TerminateBackends, Reset, Failover, Switchover:
		if s.Arg != "" {
			return bad("%s takes no ARG: give AT:%s", s.Kind, s.Kind)
		}
	case HangServer, Blackhole:
		if s.Arg == "" {
			return bad("%s needs how long it lasts: give e.g. %s:%s:5s", s.Kind, parts[0], s.Kind)
		}
		if s.For, err = dur("the time it lasts", s.Arg); err != nil {
			return Spec{}, err
		}
		if s.For == 0 {
			return bad("%s for 0s does nothing: give a positive duration", s.Kind)
		}
	case Latency:
		if s.Arg == "" {
			return bad("latency needs the delay to add: give e.g. %s:latency:50ms (or 50ms/5s for 5 s)", parts[0])
		}
		delay, lasts, hasFor := strings.Cut(s.Arg, "/")
		if s.Delay, err = dur("the added delay", delay); err != nil {
			return Spec{}, err
		}
		if s.Delay == 0 {
			return bad("latency of 0s does nothing: give a positive delay, e.g. 50ms")
		}
		if hasFor {
			if s.For, err = dur("the time it lasts", lasts); err != nil {
				return Spec{}, err
			}
			if s.For == 0 {
				return bad("latency for 0s does nothing: give a positive duration, or leave out /FOR to keep it until the window ends")
			}
		}
	default:
		return bad("unknown fault %q: choose one of %s", parts[1], kindList())
	}
	return s, nil
}

// Check checks faults against a measured window of the given length
// (0: the run counts iterations, which faults cannot be placed in): each
// starts and ends inside it, and no two on the same thing go on at once.
// poolers is how many PgBouncers kill-pooler takes in turn (a fleet's).
func Check(faults []Spec, window time.Duration, poolers int) error {
	if len(faults) == 0 {
		return nil
	}
	if window == 0 {
		return fmt.Errorf("--fault with --iterations: faults are placed in a measured window; use --duration")
	}
	for _, f := range faults {
		if f.At >= window {
			return fmt.Errorf("--fault %s: at %s is not inside the %s window: give an AT below --duration", f, f.At, window)
		}
		if end := f.End(); end > window {
			return fmt.Errorf("--fault %s ends at %s, after the %s window: make it shorter, earlier, or --duration longer", f, end, window)
		}
	}
	return checkOverlap(faults, window, max(poolers, 1))
}

// checkOverlap refuses two faults on the same thing (the server, the
// pooler, the network path) going on at once: a second black hole or
// hang inside the first would end with either, a second kill would find
// the server or pooler already down, terminate-backends would find a
// server down, hung or restarting. Faults at the same instant overlap
// too; added latency without FOR, and a pooler killed without ARG, last
// until the window ends. kill-pooler takes the poolers in turn, so in a
// fleet kills of different poolers may overlap.
func checkOverlap(faults []Spec, window time.Duration, poolers int) error {
	byAt := slices.Clone(faults)
	slices.SortStableFunc(byAt, func(a, b Spec) int { return cmp.Compare(a.At, b.At) })
	kill := make([]int, len(byAt)) // each kill-pooler's turn
	for i, n := 0, 0; i < len(byAt); i++ {
		if byAt[i].Kind == KillPooler {
			kill[i], n = n, n+1
		}
	}
	for i, prev := range byAt {
		end := prev.End()
		if (prev.Kind == Latency && prev.For == 0) || (prev.Kind == KillPooler && !prev.Restart) {
			end = window
		}
		for j, f := range byAt[i+1:] {
			same := f.Kind.thing() == prev.Kind.thing()
			if f.Kind == KillPooler && prev.Kind == KillPooler && f.At != prev.At {
				same = kill[i+1+j]%poolers == kill[i]%poolers
			}
			if !same || (f.At != prev.At && f.At >= end) {
				continue
			}
			fix := fmt.Sprintf("start it at %s or later", max(end, prev.At+time.Second))
			if later := max(end, prev.At+time.Second); later >= window {
				how := map[Kind]string{Latency: "DELAY/FOR", KillPooler: "how long it stays down"}[prev.Kind]
				if prev.End() != 0 && (prev.Kind != KillPooler || prev.Restart) {
					how = "a shorter ARG"
				}
				fix = fmt.Sprintf("give --fault %s an earlier end (%s)", prev, how)
			}
			return fmt.Errorf("--fault %s starts while --fault %s is going on (until %s): one fault at a time on the same thing; %s", f, prev, end, fix)
		}
	}
	return nil
}

func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

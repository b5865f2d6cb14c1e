package workload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// Op is one named transaction. Run makes exactly one attempt on c and
// returns its error; the runner times, retries and counts it.
type Op struct {
	Name string
	Run  func(ctx context.Context, c target.Conn) error
}

// InTxn is the op run inside a transaction: Begin, then run, which ends
// it with a commit; Rollback when it returns without (a no-op after the
// commit).
func InTxn(run func(ctx context.Context, c target.Conn) error) func(ctx context.Context, c target.Conn) error {
	return func(ctx context.Context, c target.Conn) error {
		if err := c.Begin(ctx); err != nil {
			return err
		}
		defer c.Rollback(ctx)
		return run(ctx, c)
	}
}

// ErrAbortClient marks an error after which a client cannot go on (a
// script's runtime error such as a division by zero): the runner stops
// that client and counts it as aborted; the others go on.
var ErrAbortClient = errors.New("client aborted")

// ErrAbortAfter marks an op that completed but left its client unable to
// go on (a pgbench script ending inside a transaction block): the runner
// counts the op as done, then stops the client. It wraps ErrAbortClient.
var ErrAbortAfter = fmt.Errorf("%w after its transaction", ErrAbortClient)

// Chooser is implemented by a Client whose cycle runs one of its ops,
// chosen anew each cycle (pgbench's weighted scripts), rather than all of
// them in order. Choose is called before NextCycle and returns an index
// into Ops.
type Chooser interface {
	Choose() int
}

// Client is one simulated client's view of a workload: it owns its random
// stream and any per-client buffers, so its ops need no locks.
type Client interface {
	// NextCycle prepares the next cycle and returns the pause that starts it
	// (part of the cycle's time, like dbworkload's delay).
	NextCycle() time.Duration
	// Ops are the ops of every cycle, in order.
	Ops() []Op
}

// Workload is a runnable workload: what every workload has. Its methods
// other than NewClient are called from one goroutine. What only some
// workloads have are optional interfaces beside it: Configurable (options),
// Starter (a record before the run), and the rest below and in this
// package's other files.
type Workload interface {
	// OpNames lists the ops in report order.
	OpNames() []string
	// Init creates the schema and loads the initial data, replacing what is
	// there when o.Fresh is set. Without it existing data is kept; created
	// reports whether Init had to make it. Init also fits the workload to
	// the dialect, so it runs before Start and NewClient.
	Init(ctx context.Context, c target.Conn, d target.Dialect, o InitOptions) (created bool, err error)
	// NewClient makes client id, with its own random stream.
	NewClient(id int, rng *rand.Rand) Client
	// Check verifies the invariants after the run.
	Check(ctx context.Context, c target.Conn) (result.Check, error)
}

// Configurable is a workload with options of its own.
type Configurable interface {
	// Flags registers the workload's options; Validate checks them after
	// parsing and returns a usage error naming the fix.
	Flags(fs *pflag.FlagSet)
	Validate() error
	// Settings are the workload's options as recorded in a Result.
	Settings() map[string]any
}

// Starter is a workload that records what its invariant check compares
// against. Start is called after Init and before any client runs.
type Starter interface {
	Start(ctx context.Context, c target.Conn) error
}

// Flags registers w's options on fs, when it has any.
func Flags(w Workload, fs *pflag.FlagSet) {
	if c, ok := w.(Configurable); ok {
		c.Flags(fs)
	}
}

// Validate checks w's options, when it has any.
func Validate(w Workload) error { return ask(w, Configurable.Validate) }

// Parse reads args as w's options, on a flag set of their own, and
// validates them: what the command line does with a workload's flags,
// for the tests of a workload and those that run one.
func Parse(w Workload, args ...string) error {
	fs := pflag.NewFlagSet("workload", pflag.ContinueOnError)
	Flags(w, fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	return Validate(w)
}

// Settings are w's options as recorded in a Result; nil when it has none.
func Settings(w Workload) map[string]any { return ask(w, Configurable.Settings) }

// Reader is a workload that reads files of the user's (scripts, SQL
// files): Files are their paths, which no output of the run may replace.
type Reader interface {
	Files() []string
}

// Files are the files w reads, when it reads any.
func Files(w Workload) []string { return ask(w, Reader.Files) }

// Output is a file a workload writes of its own (a history), by the flag
// that names it.
type Output struct{ Flag, Path string }

// Saver is a workload that writes files of its own: Outputs are those
// given, which no other output of the run may name and which may not be
// a file the run reads (its database's among them).
type Saver interface {
	Outputs() []Output
}

// Outputs are the files w writes of its own, when it writes any.
func Outputs(w Workload) []Output { return ask(w, Saver.Outputs) }

// ask is what f, a method of the optional interface I, says of w; the
// zero value when w does not implement I.
func ask[I, T any](w Workload, f func(I) T) T {
	if i, ok := w.(I); ok {
		return f(i)
	}
	var zero T
	return zero
}

// Start calls w's Start, when it has one.
func Start(ctx context.Context, w Workload, c target.Conn) error {
	if s, ok := w.(Starter); ok {
		return s.Start(ctx, c)
	}
	return nil
}

// CycleCounter is a workload whose users count its cycles, not its
// transactions: each cycle is one of what CycleUnit names, plural
// ("workflows"), and summaries count those, transactions beside them.
type CycleCounter interface {
	CycleUnit() string
}

// Noter is a workload that says how it fitted itself to the database
// (after Init); the notes are recorded as the Result's Notes.
type Noter interface {
	Notes() []string
}

// InitOptions are the settings of Init that come from the run, not the
// workload's own flags.
type InitOptions struct {
	Fresh    bool             // drop and recreate what exists
	Seed     uint64           // the run's --seed; the initial data derives from it
	Clients  int              // the run's clients; 0 when initialising alone
	Progress func(msg string) // reports long steps; never nil
	// Connect opens another session to the database, for a load in
	// parallel (the caller closes it); nil when Init has only its own.
	Connect func(ctx context.Context) (target.Conn, error)
	// Isolation is the level the clients' transactions run at: the one
	// --isolation asked for, else the server's default.
	Isolation target.Isolation
}

// Def describes a registered workload.
type Def struct {
	Name    string
	Summary string
	New     func() Workload
}

var registry = map[string]Def{}

// Register adds a workload; it is called from the workload package's init.
func Register(d Def) {
	if _, dup := registry[d.Name]; dup {
		panic("workload registered twice: " + d.Name)
	}
	registry[d.Name] = d
}

// Lookup finds a workload by name.
func Lookup(name string) (Def, error) {
	d, ok := registry[name]
	if !ok {
		return Def{}, fmt.Errorf("unknown workload %q: choose one of %s", name, strings.Join(Names(), ", "))
	}
	return d, nil
}

// Names lists the registered workloads, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(registry))
}

// Uniform returns a duration uniformly distributed in [lo, hi].
func Uniform(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rng.Int64N(int64(hi-lo)+1))
}

// OpTag is the comment a workload puts at the start of each statement of
// op, "/* txnbench op=NAME */ ", so the server's statement statistics
// (pg_stat_statements keeps the text it first saw of each statement) can be
// mapped back to the op. Op names are plain words; "*/" in a name would
// end the comment early and is replaced.
func OpTag(op string) string {
	return "/* txnbench op=" + strings.ReplaceAll(op, "*/", "*_/") + " */ "
}

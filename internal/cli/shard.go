package cli

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/runner"
	"github.com/txnbench/txnbench/internal/workload"
)

// shardFlags split one run across processes: --shard I/N (or
// TXNBENCH_SHARD, or --shards N with Kubernetes' JOB_COMPLETION_INDEX),
// --run-id and --shard-wait. Only run has them.
type shardFlags struct {
	shard  string
	shards int
	runID  string
	wait   time.Duration
	job    job.Shard // after resolve
}

func newShardFlags(fs *pflag.FlagSet) *shardFlags {
	f := &shardFlags{}
	fs.StringVar(&f.shard, "shard", "", "run part I of N (e.g. 0/4) of one run split across processes or machines driving one database server (env TXNBENCH_SHARD); every part gets the same flags")
	fs.IntVar(&f.shards, "shards", 0, "run part $JOB_COMPLETION_INDEX of N, as a Kubernetes Indexed Job's pods (instead of --shard)")
	fs.StringVar(&f.runID, "run-id", "", "the split run's id, the same in every shard (default: derived from --seed and the settings, and printed)")
	fs.DurationVar(&f.wait, "shard-wait", 10*time.Minute, "how long a shard waits for shard 0 to load the data and for every shard to register")
	declareFlags(fs, kindControl, "shard", "shards", "run-id", "shard-wait")
	return f
}

// spec is the job's Shard (zero for a whole run).
func (f *shardFlags) spec() job.Shard {
	if f == nil {
		return job.Shard{}
	}
	return f.job
}

// resolve reads which part of which run this process is and splits rf's
// clients, iterations and rate accordingly. A split run needs --seed or
// --run-id (the same in every shard): without --seed the seed derives
// from the run id, without --run-id the run id from the seed and the
// settings of the whole run.
func (f *shardFlags) resolve(fs *pflag.FlagSet, rf *runFlags, name string, w workload.Workload) error {
	spec, from := f.shard, "--shard"
	switch {
	case fs.Changed("shard") && fs.Changed("shards"):
		return usage(errors.New("--shard and --shards both given: choose one (--shards reads the index from JOB_COMPLETION_INDEX)"))
	case fs.Changed("shards") && f.shards < 1:
		return usage(fmt.Errorf("--shards %d: give how many shards the run has, 1 or more", f.shards))
	case fs.Changed("shards"):
		idx := os.Getenv("JOB_COMPLETION_INDEX")
		if idx == "" {
			return usage(fmt.Errorf("--shards %d needs JOB_COMPLETION_INDEX, which a Kubernetes Indexed Job sets: elsewhere give --shard I/%d", f.shards, f.shards))
		}
		spec, from = idx+"/"+strconv.Itoa(f.shards), "JOB_COMPLETION_INDEX "+idx+" with --shards"
	case spec == "":
		spec, from = os.Getenv("TXNBENCH_SHARD"), "TXNBENCH_SHARD"
	}
	if fs.Changed("run-id") {
		if err := checkRunID("--run-id", f.runID); err != nil {
			return err
		}
	}
	if spec == "" {
		if fs.Changed("run-id") {
			return usage(errors.New("--run-id names a split run: add --shard I/N"))
		}
		return nil
	}
	is, ns, ok := strings.Cut(spec, "/")
	i, ierr := strconv.Atoi(is)
	n, nerr := strconv.Atoi(ns)
	if !ok || ierr != nil || nerr != nil || n < 1 || i < 0 || i >= n {
		if fs.Changed("shards") {
			return usage(fmt.Errorf("JOB_COMPLETION_INDEX %q with --shards %d: want an index from 0 to %d, as the Indexed Job of %d completions sets it", is, f.shards, f.shards-1, f.shards))
		}
		return usage(fmt.Errorf("%s %q: want I/N, part I (from 0) of N, e.g. 0/4", from, spec))
	}
	if u, ok := w.(workload.Unsplittable); ok {
		return usage(errors.New(u.Unsplittable()))
	}
	if !rf.spec.Remote() || !engine.Of(rf.spec).Caps().RunTable {
		return usage(errors.New("a split run needs a database server every shard reaches: give --db postgres://... (SQLite and temp-postgres belong to one process)"))
	}
	if f.wait <= 0 {
		return usage(fmt.Errorf("--shard-wait %s: give a positive duration such as 10m", f.wait))
	}
	if !fs.Changed("seed") {
		if f.runID == "" {
			return usage(errors.New("a split run needs --seed or --run-id, the same in every shard, so that the shards agree on the run"))
		}
		h := fnv.New64a()
		h.Write([]byte(f.runID))
		rf.seed = h.Sum64()>>1 | 1
		rf.cfg.Seed = rf.seed
	}
	settings := settingsKey(rf, workload.Settings(w), n)
	if f.runID == "" {
		f.runID = fmt.Sprintf("%s-%d-%s", name, rf.seed, settings[:8])
	}
	sh := runner.Shard{Index: i, Count: n}
	if err := sh.Split(&rf.cfg); err != nil {
		return usage(err)
	}
	f.job = job.Shard{RunID: f.runID, Wait: f.wait, Settings: fmt.Sprintf("%s seed %d", settings, rf.seed)}
	return nil
}

// settingsKey is a hash of the whole run's settings (before the shard's
// split): the default run id has it, so that shards started with the same
// flags agree on the id and a run with other settings gets another, and
// every shard registers it, so that one started with other flags under
// the same --run-id is refused.
func settingsKey(rf *runFlags, settings map[string]any, shards int) string {
	h := fnv.New32a()
	c := rf.cfg
	fmt.Fprintf(h, "%d %d %d %s %g %s %s %s", shards, c.Clients, c.Iterations, c.Duration, c.Rate, c.Warmup, rf.conn.Strategy, rf.spec.Via)
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		fmt.Fprintf(h, " %s=%v", k, settings[k])
	}
	return fmt.Sprintf("%08x", h.Sum32())
}

// maxRunID is the longest run id taken, in bytes.
const maxRunID = 128

// checkRunID refuses a run id that would garble the lines and tables
// that show it: one with a control character (a newline, an escape
// sequence) or longer than maxRunID. Its errors show the id quoted and
// cut short.
func checkRunID(what, id string) error {
	switch {
	case id == "":
		return usage(fmt.Errorf("%s is empty: give the split run's id, e.g. train-events-7", what))
	case strings.ContainsFunc(id, func(r rune) bool { return !unicode.IsPrint(r) }) || !utf8.ValidString(id):
		return usage(fmt.Errorf("%s %s holds a control character (a newline or an escape, say): give printable characters only, e.g. train-events-7", what, quoteShort(id)))
	case len(id) > maxRunID:
		return usage(fmt.Errorf("%s %s is %d bytes long: give at most %d", what, quoteShort(id), len(id), maxRunID))
	}
	return nil
}

// quoteShort quotes s for a one-line message (control characters
// escaped), its first 32 characters and "..." when it is longer.
func quoteShort(s string) string {
	const most = 32
	if r := []rune(s); len(r) > most {
		return strconv.Quote(string(r[:most])) + "..."
	}
	return strconv.Quote(s)
}

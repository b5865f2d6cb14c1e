package cli

import (
	"github.com/spf13/pflag"

	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/localdb"
)

// replicaFlags are --replicas and --replication (docs/replication.md).
type replicaFlags struct {
	n        int
	mode     string
	readFrom string
	spec     job.Replication // read by validate
}

func (f *replicaFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.n, "replicas", 0, "with --db temp-postgres: start this many streaming standbys of the primary (pg_basebackup, a replication slot each), which --fault failover and switchover promote; see docs/replication.md")
	fs.StringVar(&f.mode, "replication", string(localdb.Async), "with --replicas: async (a commit waits for the primary alone), sync (for one standby to flush it) or sync-apply (to apply it, so reads there see it)")
	fs.StringVar(&f.readFrom, "read-from", job.ReadPrimary, "with --replicas: where the workload's read-only transactions go: primary, replicas (the standbys, clients dealt round-robin) or any (every member); stale reads are counted")
	declareFlags(fs, kindSetting, "replicas", "replication", "read-from")
}

// validate reads the flags into spec; job.Spec.CheckReplication checks
// them against the rest of the run.
func (f *replicaFlags) validate(fs *pflag.FlagSet) error {
	f.spec = job.Replication{Replicas: f.n}
	rf, err := job.ParseReadFrom(f.readFrom)
	if err != nil {
		return usage(err)
	}
	f.spec.ReadFrom = rf
	if fs.Changed("replication") {
		m, err := localdb.ParseReplication(f.mode)
		if err != nil {
			return usage(err)
		}
		f.spec.Mode = m
	} else if f.n > 0 {
		f.spec.Mode = localdb.Async
	}
	return nil
}

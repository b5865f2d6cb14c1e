package cli

import "github.com/txnbench/txnbench/internal/workload"

// checkFiles refuses, before anything runs, a run whose outputs (the
// run's own and the workload's, a history) name one file twice or name a
// file the run reads: the workload's files, the --config file, and the
// SQLite database with its journal files, which a result or history
// saved over would destroy.
func (rs *runSpec) checkFiles(config string) error {
	outs := rs.f.outs()
	for _, o := range workload.Outputs(rs.w) {
		outs = append(outs, outFile{o.Flag, o.Path})
	}
	if err := checkOutFiles(outs...); err != nil {
		return err
	}
	inputs := append(workload.Files(rs.w), config)
	if f := rs.f.spec.File(); f != "" {
		inputs = append(inputs, f, f+"-wal", f+"-shm", f+"-journal")
	}
	return checkNotInputs(inputs, outs...)
}

package cli

import (
	"github.com/txnbench/txnbench/internal/fault"
	"github.com/txnbench/txnbench/internal/job"
)

// faultsOf reads the --fault values into s and checks them against the
// rest of the run: a usage error (exit 2) before anything starts.
func faultsOf(s *job.Spec, vals []string) error {
	for _, v := range vals {
		f, err := fault.Parse(v)
		if err != nil {
			return usage(err)
		}
		s.Faults = append(s.Faults, f)
	}
	if err := s.CheckFaults(); err != nil {
		return usage(err)
	}
	if err := s.CheckReplication(); err != nil {
		return usage(err)
	}
	return nil
}

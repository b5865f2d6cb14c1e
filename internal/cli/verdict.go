package cli

import (
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
)

// failedVerdict is the exit status of a run that finished with its
// invariants intact and was not interrupted, yet failed: an op that never
// succeeded, or (with --min-success PCT above 0) a transaction success
// rate below PCT. It is nil when the run passes.
func failedVerdict(r *result.Result, minSuccess float64) error {
	if o, class, sample := r.NeverSucceeded(); o != nil {
		sample, _, _ = strings.Cut(sample, "\n")
		return exitError{code: exitcode.Failure, msg: fmt.Sprintf("no %s succeeded: %d failed (%s: %s)", o.Name, o.ErrorCount(), class, sample)}
	}
	if minSuccess <= 0 {
		return nil
	}
	ok, failed := r.Transactions()
	rate := 0.0
	if ok+failed > 0 {
		rate = 100 * float64(ok) / float64(ok+failed)
	}
	if rate < minSuccess {
		return exitError{code: exitcode.Failure, msg: fmt.Sprintf("%.2f%% of transactions succeeded (%d of %d), below --min-success %g", rate, ok, ok+failed, minSuccess)}
	}
	return nil
}

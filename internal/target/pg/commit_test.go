package pg

import (
	"fmt"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
)

// TestRolledBackCommitIsKnown: a COMMIT the server answered with ROLLBACK
// (the transaction had failed) did not happen, wrapped or not.
func TestRolledBackCommitIsKnown(t *testing.T) {
	for _, err := range []error{errRolledBack, fmt.Errorf("commit: %w", errRolledBack)} {
		if target.CommitOutcomeUnknown(err) {
			t.Errorf("CommitOutcomeUnknown(%v) = true, want false", err)
		}
	}
}

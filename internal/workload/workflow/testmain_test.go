package workflow

import (
	"os"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// TestMain stops the cluster tests share (testutil.SharedPostgres) when
// they are done.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

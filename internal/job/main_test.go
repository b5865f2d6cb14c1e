package job

import (
	"fmt"
	"os"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"

	_ "github.com/txnbench/txnbench/internal/engine/engines" // the engines start the throwaway servers
)

// TestMain stops the clusters the tests share (testutil.SharedPostgres's
// and sequentialTempPostgres's).
func TestMain(m *testing.M) {
	code := testutil.Main(m)
	if err := closeSequentialTempPostgres(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the sequential tests' temp-postgres: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

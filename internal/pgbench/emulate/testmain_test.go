package emulate_test

import (
	"os"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// TestMain stops the cluster the differential tests share
// (testutil.SharedPostgres) when they are done.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

package pg_test

import (
	"os"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// TestMain stops the cluster the tests share (testutil.SharedPostgres).
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

package inputs

import (
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
)

// TestMain lets the tests run the real command in a child process.
func TestMain(m *testing.M) { clitest.Main(m) }

// Package scripts holds the end-to-end tests of pgbench-compatible scripts: txnbench pgbench, --script runs and studies, their setup and checks, statement times and the server's share.
// Its tests run the real command (see internal/cli/clitest); the package
// has no code of its own.
package scripts

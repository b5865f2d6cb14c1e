// Package faults holds the end-to-end tests of --fault: servers and poolers killed, hung and restarted mid-run, the recovery the run records, a pool of many clients through a restart, and a freed port that another user's fake server takes.
// Its tests run the real command (see internal/cli/clitest); the package
// has no code of its own.
package faults

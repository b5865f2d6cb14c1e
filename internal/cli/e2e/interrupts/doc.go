// Package interrupts holds the end-to-end tests of signals and hangs: Ctrl-C and SIGTERM mid-run and during a stopped (SIGSTOPped) server, a second interrupt, frozen servers, poolers and shards, and what an interrupted or killed run leaves behind.
// Its tests run the real command (see internal/cli/clitest); the package
// has no code of its own.
package interrupts

// Package inputs holds the end-to-end tests of what txnbench is given and what it answers: bad and edge-case input, exit codes and verdicts, runtime failures, diff, the recorded arguments, the GitHub action, the release script, the version, an unprivileged user.
// Its tests run the real command (see internal/cli/clitest); the package
// has no code of its own.
package inputs

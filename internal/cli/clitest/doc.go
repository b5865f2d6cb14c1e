// Package clitest holds what the end-to-end tests of txnbench's command
// share: a TestMain that lets the test binary run as txnbench (and as
// another local user's fake server), runs of the command in-process or in
// a child process, waits on its output and exit, and the processes a test
// started (its servers, poolers and their children), found by ancestry,
// never by name alone. Each package under internal/cli/e2e holds one
// topic's tests; its TestMain is clitest.Main.
package clitest

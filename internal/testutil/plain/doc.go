// Package plain holds the test helpers that link no driver and start
// nothing: golden files (Golden) and text assertions (Contains, Lacks).
// The driver-free packages (result, report, diff, study, suite, live,
// history) test with it, so their tests do not link every driver as
// internal/testutil's servers do.
package plain

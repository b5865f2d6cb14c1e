// Package outputs holds the end-to-end tests of what a run writes and shows: the HTML report (drawn in headless Chromium), CSV and JSONL, the metrics endpoint and Grafana dashboard, progress lines, windows, phases, slow ops and a closed pipe.
// Its tests run the real command (see internal/cli/clitest); the package
// has no code of its own.
package outputs

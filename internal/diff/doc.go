// Package diff compares two txnbench results, studies or suites scenario by
// scenario and metric by metric (throughput, latency percentiles, errors,
// invariants, database-side counters per transaction and server time per
// op), decides for each metric whether it moved beyond its noise threshold
// and in which direction, and refuses to compare runs whose fixed settings
// (workload, its settings, clients, duration or iterations, connector,
// database kind, server and txnbench versions, the invariants checked, a
// suite's scenario names) differ unless told to. It is what
// "txnbench diff BASE NEW" gates CI with. It computes the Report; report
// (diff.go) writes it as text or Markdown.
package diff

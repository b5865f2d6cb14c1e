package suite

// SampleReport is sampleReport, for render_test.go (package suite_test,
// which may import report: report imports suite).
var SampleReport = sampleReport

// WorkflowSummary is the summary of a workflow run of 100 cycles (200
// transactions) of 100 ms over 10 s, for render_test.go.
func WorkflowSummary() Summary {
	r := run(100, 10, 10, 4, 0, true)
	r.CycleUnit = "workflows"
	return RunSummary(r)
}

// Phased is phased (a workflow run with the given phase latencies,
// commits and waits), for render_test.go.
var Phased = phased

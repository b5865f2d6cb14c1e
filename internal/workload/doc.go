// Package workload defines what a workload is (its flags, schema, data, ops
// and invariant check) and keeps the registry of workloads. A workload never
// opens connections, paces, retries or records timings: the runner does
// (a workload with steps hands their durations to the runner's StepRecorder).
package workload

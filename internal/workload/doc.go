// Package workload defines what a workload is (its flags, schema, data, ops
// and invariant check) and keeps the registry of workloads. A workload never
// opens connections, paces, retries or times anything: the runner does.
package workload

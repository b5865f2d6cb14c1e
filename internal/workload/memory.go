package workload

// MemoryUser is implemented by a workload whose clients hold memory that
// grows with its settings (a batch's events, encoded and sent at once).
// The runner multiplies it by the clients to refuse, before anything
// starts, a run the machine could not hold.
type MemoryUser interface {
	// ClientMemory is about the most memory one client holds at once, in
	// bytes, and the flags that set it (e.g. "--max-batch 100"), to name
	// in the refusal.
	ClientMemory() (bytes float64, flags string)
}

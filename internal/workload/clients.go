package workload

// ClientDefaulter is a workload whose number of clients follows from its
// own flags (TPC-C's ten terminals per warehouse): DefaultClients replaces
// the default of --clients when --clients is not given.
type ClientDefaulter interface {
	DefaultClients() int
}

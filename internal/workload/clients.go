package workload

// ClientDefaulter is a workload whose number of clients follows from its
// own flags (TPC-C's ten terminals per warehouse): DefaultClients replaces
// the default of --clients when --clients is not given. from says what
// they follow from in the flags the user gave, for an error about them
// ("--warehouses 5 (10 clients each, as --clients is not given)"): an
// error must name a flag the user gave, not --clients. The workload is
// validated before it is asked.
type ClientDefaulter interface {
	DefaultClients() (clients int, from string)
}

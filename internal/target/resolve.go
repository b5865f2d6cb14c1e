package target

// Resolver is a Driver whose URLs take what they leave out from the
// environment and files of its client library (libpq's PGHOST & co. for
// PostgreSQL), and may name several hosts.
type Resolver interface {
	// ResolveURL is url with what the environment gives written in.
	ResolveURL(url string) string
	// MultiHost reports whether url names more than one host.
	MultiHost(url string) bool
}

// ResolveURL is u as its driver resolves it (see Resolver), or u itself
// when its driver does not, or u is no URL of a driver (temp-postgres,
// pgbouncer).
func ResolveURL(u string) string {
	if r, ok := driverFor(u).(Resolver); ok {
		return r.ResolveURL(u)
	}
	return u
}

// MultiHost reports whether u names more than one host, as its driver
// reads it; false when its driver does not tell.
func MultiHost(u string) bool {
	r, ok := driverFor(u).(Resolver)
	return ok && r.MultiHost(u)
}

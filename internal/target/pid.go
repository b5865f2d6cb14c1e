package target

// BackendPIDer is a Conn that knows its server session's process id
// (pg_backend_pid()), which the server sends as the session starts, so
// asking costs nothing. Through a pooler it is the pooler's stand-in, not
// a server process.
type BackendPIDer interface {
	BackendPID() uint32
}

// BackendPID returns c's server session pid, 0 when c has none.
func BackendPID(c Conn) uint32 {
	if p, ok := c.(BackendPIDer); ok {
		return p.BackendPID()
	}
	return 0
}

// TLSReporter is a Conn that says what TLS its connection negotiated.
type TLSReporter interface {
	// TLS returns the connection's TLS version (e.g. "TLS 1.3") and
	// cipher suite; ok is false on a connection without TLS.
	TLS() (version, cipher string, ok bool)
}

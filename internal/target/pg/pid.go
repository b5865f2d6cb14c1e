package pg

// BackendPID is the pid the server sent when the session started.
func (p *pgConn) BackendPID() uint32 { return p.c.PgConn().PID() }

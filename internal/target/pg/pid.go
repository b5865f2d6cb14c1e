package pg

import "crypto/tls"

// BackendPID is the pid the server sent when the session started.
func (p *pgConn) BackendPID() uint32 { return p.c.PgConn().PID() }

// TLS is what the session's connection negotiated, when it is TLS.
func (p *pgConn) TLS() (version, cipher string, ok bool) {
	tc, ok := p.c.PgConn().Conn().(*tls.Conn)
	if !ok {
		return "", "", false
	}
	st := tc.ConnectionState()
	return tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite), true
}

package job

import (
	"cmp"
	"errors"
	"net/url"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// ErrTLSNeedsTempPostgres refuses --tls on anything but a throwaway
// PostgreSQL, the one server whose certificates txnbench makes.
var ErrTLSNeedsTempPostgres = errors.New("--tls makes txnbench's throwaway PostgreSQL and PgBouncer serve TLS: use --db temp-postgres (for a server of yours put sslmode=verify-full and sslrootcert in its URL instead; temp-mariadb serves no TLS yet)")

// noteTLS records what TLS c, a client's session, negotiated, and how the
// client checked the server: with --tls against the run's CA, else as the
// URL's sslmode says.
func (d *Database) noteTLS(s Spec, c target.Conn) {
	tr, ok := c.(target.TLSReporter)
	if !ok {
		return
	}
	version, cipher, ok := tr.TLS()
	if !ok {
		return
	}
	verify := "sslmode=prefer"
	if u, err := url.Parse(d.connURL); err == nil {
		verify = "sslmode=" + cmp.Or(u.Query().Get("sslmode"), "prefer")
	}
	if s.TLS {
		verify += " against the run's CA"
	}
	d.tls = &result.TLS{Version: version, Cipher: cipher, Verify: verify}
}

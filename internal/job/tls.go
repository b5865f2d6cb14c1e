package job

import (
	"cmp"
	"errors"
	"net/url"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// ErrTLSNeedsTempPostgres refuses --tls on anything but a throwaway
// PostgreSQL, the one server whose TLS it turns on: temp-mariadb serves
// TLS always, so --tls=off could not be what it runs.
var ErrTLSNeedsTempPostgres = errors.New("--tls makes txnbench's throwaway PostgreSQL and PgBouncer serve TLS: use --db temp-postgres (temp-mariadb always serves TLS, verified against the run's CA; for a server of yours put sslmode=verify-full and sslrootcert, or tls-ca, in its URL instead)")

// noteTLS records what TLS c, a client's session, negotiated, and how the
// client checked the server: against the run's CA with --tls and on
// temp-mariadb, else as the URL's sslmode (or tls-ca) says.
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
	if u, err := url.Parse(d.conn.URL); err == nil {
		verify = "sslmode=" + cmp.Or(u.Query().Get("sslmode"), "prefer")
		if u.Query().Has("tls-ca") {
			verify = "tls-ca"
		}
	}
	if s.TLS || (s.DB.Throwaway() && verify == "tls-ca") { // temp-mariadb's URLs verify it against its CA
		verify += " against the run's CA"
	}
	d.tls = &result.TLS{Version: version, Cipher: cipher, Verify: verify}
}

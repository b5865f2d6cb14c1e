package target

import (
	"net/url"
	"strings"
)

// What only some drivers do beyond Driver: callers ask target, which asks
// the driver of a URL's kind (or every driver, for an error) by type
// assertion, so nothing above target imports a driver for it.

// ConnectWorder is a Driver that words a failure to connect as its client
// library does (libpq's PQerrorMessage for PostgreSQL).
type ConnectWorder interface {
	ConnectMessage(err error) (msg string, ok bool)
}

// ConnectMessage is a failure to connect worded as the client library of
// the driver that failed words it, without the last newline; ok is false
// when err is not a failure to connect that a driver words.
func ConnectMessage(err error) (msg string, ok bool) {
	return explain(func(d Driver) (string, bool) {
		if w, ok := d.(ConnectWorder); ok {
			return w.ConnectMessage(err)
		}
		return "", false
	})
}

// ConnInfoer is a Driver that tells where a URL connects as its client
// library would (libpq's PQhost, PQport and PQdb for PostgreSQL).
type ConnInfoer interface {
	ConnInfo(url string) (host, port, db string)
}

// ConnInfo is the host, port and database a connection to u reaches, as
// its driver's client library says them; empty when u's driver does not
// tell or u does not parse.
func ConnInfo(u string) (host, port, db string) {
	if c, ok := driverFor(u).(ConnInfoer); ok {
		return c.ConnInfo(u)
	}
	return "", "", ""
}

// PasswordFinder is a Driver whose connections find a password beyond
// the URL (PostgreSQL's PGPASSWORD, service file and ~/.pgpass).
type PasswordFinder interface {
	Password(url string) string
}

// Password is the password a connection to sp's URL sends: the one its
// driver finds (the URL's own first), or else the URL's own; "" when there
// is none. It is for what must hand the password on (a PgBouncer's
// backend).
func Password(sp Spec) string {
	u := sp.URL
	if f, ok := driverOf(sp.Kind).(PasswordFinder); ok {
		return f.Password(u)
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	pw, _ := pu.User.Password()
	return pw
}

// driverFor is the driver registered for the kind of the URL u, by its
// scheme alone (u is not read as a spec: ParseSpec reads --db once), or
// nil when u is no driver's URL.
func driverFor(u string) Driver {
	switch {
	case isPostgresURL(u):
		return driverOf(ServerURL)
	case strings.HasPrefix(u, mysqlScheme):
		return driverOf(MySQLURL)
	}
	return nil
}

package pg

import (
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// ResolveURL returns the postgres:// URL u with what libpq would take from
// elsewhere written into it: the hosts and ports, user and database that
// PGHOST, PGPORT, PGUSER, PGDATABASE and a service file (PGSERVICE or
// service=, PGSERVICEFILE or ~/.pg_service.conf) give, or libpq's
// defaults, and PGSSLMODE's sslmode (not with a service, whose own
// sslmode wins over it). Values in u win, as in libpq. The password is
// never written: the connection reads it again from u,
// PGPASSWORD, ~/.pgpass or the service file, so a resolved URL can be
// shown and recorded. Every host of a multi-host URL (h1:p1,h2:p2) is
// kept, in order. Anything else, or a URL that does not parse, is
// returned as it is, for Open to explain.
func ResolveURL(u string) string {
	if !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		return u // a key=value string: what pgx would read of it is its own
	}
	cfg, err := pgconn.ParseConfig(u)
	if err != nil {
		return u
	}
	// The hosts are rewritten from cfg: keep them away from url.Parse, which
	// refuses some that pgx takes (h1:1,h2, a host without a port after one
	// with).
	pu, err := url.Parse(withoutHosts(u))
	if err != nil {
		return u
	}
	var hosts, ports []string
	socket := false
	seen := map[string]bool{}
	add := func(host string, port uint16) {
		key := host + "\x00" + strconv.Itoa(int(port))
		if seen[key] {
			return // pgx lists a host once per TLS attempt
		}
		seen[key] = true
		hosts, ports = append(hosts, host), append(ports, strconv.Itoa(int(port)))
		socket = socket || strings.HasPrefix(host, "/")
	}
	add(cfg.Host, cfg.Port)
	for _, fb := range cfg.Fallbacks {
		add(fb.Host, fb.Port)
	}
	q := pu.Query()
	if socket {
		// A socket directory cannot stand in the authority: name the
		// hosts as libpq's host= and port= parameters.
		pu.Host = ""
		q.Set("host", strings.Join(hosts, ","))
		q.Set("port", strings.Join(ports, ","))
	} else {
		addrs := make([]string, len(hosts))
		for i := range hosts {
			addrs[i] = net.JoinHostPort(hosts[i], ports[i])
		}
		pu.Host = strings.Join(addrs, ",")
		q.Del("host")
		q.Del("port")
	}
	if pu.User == nil || pu.User.Username() == "" {
		if pw, ok := pu.User.Password(); ok {
			pu.User = url.UserPassword(cfg.User, pw)
		} else {
			pu.User = url.User(cfg.User)
		}
	}
	if strings.TrimPrefix(pu.Path, "/") == "" && q.Get("dbname") == "" {
		pu.Path = "/" + cfg.Database
	}
	// A service file's sslmode wins over PGSSLMODE (and the connection
	// reads it again): PGSSLMODE is written only without a service.
	service := q.Get("service") != "" || os.Getenv("PGSERVICE") != ""
	if mode := os.Getenv("PGSSLMODE"); mode != "" && q.Get("sslmode") == "" && !service {
		q.Set("sslmode", mode)
	}
	pu.RawQuery = q.Encode()
	return pu.String()
}

// withoutHosts is the URL u with its hosts, if any, replaced by one
// placeholder host.
func withoutHosts(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return u
	}
	rest := u[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@") + 1
	if at == end {
		return u // no host
	}
	return u[:i+3] + rest[:at] + "placeholder" + rest[end:]
}

// Password is the password a connection to the postgres:// URL u sends:
// u's own, or else PGPASSWORD's, the service file's or ~/.pgpass's, as
// libpq picks it; "" when there is none or u does not parse. It is for
// what must hand the password on (a PgBouncer's backend).
func Password(u string) string {
	cfg, err := pgconn.ParseConfig(u)
	if err != nil {
		return ""
	}
	return cfg.Password
}

// MultiHost reports whether the postgres:// URL u names more than one
// host (h1:p1,h2:p2), which only libpq-style clients can fail over.
func MultiHost(u string) bool {
	cfg, err := pgconn.ParseConfig(u)
	if err != nil {
		return false
	}
	for _, fb := range cfg.Fallbacks {
		if fb.Host != cfg.Host || fb.Port != cfg.Port {
			return true
		}
	}
	return false
}

// Password is Password (target.PasswordFinder).
func (driver) Password(u string) string { return Password(u) }

// ResolveURL is ResolveURL (target.Resolver).
func (driver) ResolveURL(u string) string { return ResolveURL(u) }

// MultiHost is MultiHost (target.Resolver).
func (driver) MultiHost(u string) bool { return MultiHost(u) }

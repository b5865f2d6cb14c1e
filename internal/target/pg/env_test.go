package pg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveURL(t *testing.T) {
	for _, k := range []string{"PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE", "PGSSLMODE", "PGSERVICE", "PGSERVICEFILE", "PGPASSFILE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	dir := t.TempDir()
	services := filepath.Join(dir, "services")
	if err := os.WriteFile(services, []byte("[svc]\nhost=db.svc\nport=6543\nuser=svcuser\ndbname=svcdb\nsslmode=require\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PGHOST": "db.env", "PGPORT": "5444", "PGUSER": "envuser", "PGDATABASE": "envdb", "PGSSLMODE": "disable", "PGPASSWORD": "envpw"}
	cases := []struct {
		name, in, want string
		env            map[string]string
	}{
		{"all from the environment", "postgres://", "postgres://envuser@db.env:5444/envdb?sslmode=disable", env},
		{"the URL wins", "postgres://me:pw@db.url/urldb?sslmode=require", "postgres://me:pw@db.url:5444/urldb?sslmode=require", env},
		{"several hosts, each with its port", "postgres://u@h1:1,h2:2/d?sslmode=disable", "postgres://u@h1:1,h2:2/d?sslmode=disable", map[string]string{"PGPORT": "5444"}},
		// pgx gives a host without a port 5432, even with PGPORT (libpq
		// would use PGPORT): the resolved URL says what pgx connects to
		{"a host without a port after one with", "postgres://u@h1:1,h2/d?sslmode=disable", "postgres://u@h1:1,h2:5432/d?sslmode=disable", map[string]string{"PGPORT": "5444"}},
		{"several hosts from PGHOST", "postgresql:///d", "postgresql://u@a:5432,b:5432/d?sslmode=disable", map[string]string{"PGHOST": "a,b", "PGUSER": "u", "PGSSLMODE": "disable"}},
		{"a socket directory", "postgres:///d", "postgres://u@/d?host=%2Frun%2Fpg&port=5432", map[string]string{"PGHOST": "/run/pg", "PGUSER": "u"}},
		{"a service file; its sslmode beats PGSSLMODE", "postgres://", "postgres://svcuser@db.svc:6543/svcdb", map[string]string{"PGSERVICEFILE": services, "PGSERVICE": "svc", "PGSSLMODE": "disable"}},
		{"not a URL pgx takes", "postgres://h:notaport/d", "postgres://h:notaport/d", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			if got := ResolveURL(c.in); got != c.want {
				t.Errorf("ResolveURL(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// FuzzResolveURL: no URL makes ResolveURL panic, and a URL it resolved
// resolves to itself (but for a "#", which pgx takes as part of a host
// and url.Parse as a fragment).
func FuzzResolveURL(f *testing.F) {
	for _, s := range []string{"postgres://", "postgres://u:p@h1:1,h2:2/d?sslmode=disable", "postgres:///d?host=/tmp", "postgres://[::1]:5/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := ResolveURL(s)
		if r != s && !strings.Contains(s, "#") {
			if again := ResolveURL(r); again != r {
				t.Errorf("ResolveURL(%q) = %q, which resolves to %q", s, r, again)
			}
		}
	})
}

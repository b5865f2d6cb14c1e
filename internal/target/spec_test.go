package target

import (
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
	}{
		{"", Spec{Kind: SQLiteTemp}},
		{"sqlite:", Spec{Kind: SQLiteTemp}},
		{"sqlite:/tmp/a.db", Spec{Kind: SQLiteFile, Path: "/tmp/a.db"}},
		{"temp-postgres", Spec{Kind: TempPostgres}},
		{"temp-mariadb", Spec{Kind: TempMariaDB}},
		{"temp-postgres@17", Spec{Kind: TempPostgres, Version: "17"}},
		{"postgres://u@h/db", Spec{Kind: ServerURL, URL: "postgres://u@h/db", Addr: Addr{"h", "5432"}, User: "u", Database: "db"}},
		{"postgresql://u@h:6432/db?sslmode=disable", Spec{Kind: ServerURL, URL: "postgresql://u@h:6432/db?sslmode=disable", Addr: Addr{"h", "6432"}, User: "u", Database: "db"}},
		{"postgres://u@%2Ftmp/db", Spec{Kind: ServerURL, URL: "postgres://u@%2Ftmp/db"}}, // pgx's, not net/url's
		{"postgres://u@/db?host=/tmp", Spec{Kind: ServerURL, URL: "postgres://u@/db?host=/tmp", Addr: Addr{"", "5432"}, User: "u", Database: "db"}},
		{"postgres:///db?host=h", Spec{Kind: ServerURL, URL: "postgres:///db?host=h", Addr: Addr{"", "5432"}, Database: "db"}},
		{"postgres://u@h1,h2/db", Spec{Kind: ServerURL, URL: "postgres://u@h1,h2/db", User: "u", Database: "db"}},
		{"postgres://u@h1:1,h2:2/db", Spec{Kind: ServerURL, URL: "postgres://u@h1:1,h2:2/db", User: "u", Database: "db"}},
		{"mysql://u:p@h:3306/db", Spec{Kind: MySQLURL, URL: "mysql://u:p@h:3306/db", Addr: Addr{"h", "3306"}, User: "u", Database: "db"}},
		{"mysql://u:p@h/db", Spec{Kind: MySQLURL, URL: "mysql://u:p@h/db", Addr: Addr{"h", "3306"}, User: "u", Database: "db"}},
	} {
		got, err := ParseSpec(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSpec(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"temp-postgres2", "mongodb://u@h/db", "direct", "pg://u:secret@h/db"} {
		_, err := ParseSpec(bad)
		if err == nil || !strings.Contains(err.Error(), "use sqlite:PATH, temp-postgres, temp-mariadb, a postgres:// URL or a mysql:// URL") {
			t.Errorf("ParseSpec(%q) error = %v, want one naming the accepted forms", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseSpec(%q) error shows the password: %v", bad, err)
		}
	}
}

// TestSpecString: a spec reads back as --db gives it, so what is
// recorded and compared (a study's shared databases) is the user's text.
func TestSpecString(t *testing.T) {
	for _, in := range []string{"sqlite:", "sqlite:/tmp/a.db", "temp-postgres", "temp-postgres@17.2", "temp-mariadb", "postgres://u@h/db", "mysql://u@h/db"} {
		sp, err := ParseSpec(in)
		if err != nil || sp.String() != in {
			t.Errorf("ParseSpec(%q).String() = %q, %v; want it back", in, sp.String(), err)
		}
	}
}

// TestAddrTCP: a proxy goes in front of one TCP address only, not a Unix
// socket, several hosts or none.
func TestAddrTCP(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u@h/db":        "h:5432",
		"postgres://u@[::1]:6/db":  "[::1]:6",
		"postgres://u@%2Ftmp/db":   "",
		"postgres://u@h1,h2/db":    "",
		"postgres:///db?host=h":    "",
		"postgres://u@/db?host=/s": "",
		"postgres://u@h1:1,h2:2/d": "",
	} {
		sp, _ := ParseSpec(in)
		if got := sp.Addr.TCP(); got != want {
			t.Errorf("%s: TCP address %q, want %q", in, got, want)
		}
	}
}

func TestParseVia(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Via
	}{
		{"direct", Via{}},
		{"pgbouncer", Via{Kind: ViaPgBouncer}},
		{"postgres://u@pooler:6432/db", Via{Kind: ViaURL, URL: "postgres://u@pooler:6432/db", Addr: Addr{"pooler", "6432"}, Admin: "postgres://u@pooler:6432/pgbouncer"}},
	} {
		got, err := ParseVia(c.in)
		if err != nil || got != c.want || got.String() != c.in {
			t.Errorf("ParseVia(%q) = %+v (%q), %v; want %+v", c.in, got, got.String(), err, c.want)
		}
	}
	for _, bad := range []string{"", "bogus", "temp-postgres", "mysql://u@h/db", "pg://u:secret@h/db"} {
		_, err := ParseVia(bad)
		if err == nil || !strings.Contains(err.Error(), "use direct, pgbouncer or a postgres:// URL of a pooler") || strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseVia(%q) error = %v, want one naming the accepted forms, password masked", bad, err)
		}
	}
}

func TestWithParam(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://h/db", "postgres://h/db?k=v"},
		{"postgres://h/db?a=1", "postgres://h/db?a=1&k=v"},
		{"postgres://h/db?k=mine", "postgres://h/db?k=mine"},
	} {
		if got := WithParam(c.in, "k", "v"); got != c.want {
			t.Errorf("WithParam(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestForm: what sort of database a spec is, as results record it and
// diff compares it: a throwaway server's form without its version (two
// temp-postgres@17 runs compare with temp-postgres ones), each
// throwaway engine its own, a URL a server, and so a pooler's URL given
// without --db.
func TestForm(t *testing.T) {
	pooler, err := ParseVia("postgres://u@pooler:6432/db")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sp   Spec
		want string
	}{
		{Spec{Kind: SQLiteTemp}, "sqlite"},
		{Spec{Kind: SQLiteFile, Path: "/tmp/a.db"}, "sqlite"},
		{Spec{Kind: TempPostgres, Version: "17"}, "temp-postgres"},
		{Spec{Kind: TempMariaDB}, "temp-mariadb"},
		{URLSpec(ServerURL, "postgres://u@h/db"), "server"},
		{URLSpec(MySQLURL, "mysql://u@h/db"), "server"},
		{Spec{Kind: SQLiteTemp, Via: pooler}, "server"},
	} {
		if got := c.sp.Form(); got != c.want {
			t.Errorf("%s (via %s): Form() = %q, want %q", c.sp, c.sp.Via, got, c.want)
		}
	}
}

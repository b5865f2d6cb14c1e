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
		{"postgres://u@h/db", Spec{Kind: ServerURL, URL: "postgres://u@h/db"}},
		{"postgresql://u@h/db?sslmode=disable", Spec{Kind: ServerURL, URL: "postgresql://u@h/db?sslmode=disable"}},
		{"mysql://u:p@h:3306/db", Spec{Kind: MySQLURL, URL: "mysql://u:p@h:3306/db"}},
	} {
		got, err := ParseSpec(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
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

package target

import (
	"strings"
	"testing"
)

// specSeeds are --db values of every form, and near misses.
var specSeeds = []string{
	"", "sqlite:", "sqlite:/tmp/a.db", "sqlite:a b?#%.db", "temp-postgres", "temp-postgres@17", "temp-postgres@17.10",
	"temp-postgres@x", "temp-postgres@", "temp-mariadb", "temp-mariadbx", "postgres://u:secret@h:6432/db?sslmode=disable",
	"postgresql://h1:5432,h2:5433/db", "postgres://h:0/db", "postgres://h:99999/db", "mysql://u:secret@h/db",
	"mysql://u:p@h:3307/db?tls-ca=/ca.pem", "mysql://h:x/db", "postgres://[::1]:5432/db", "postgres:///db?host=/tmp",
	"oracle://u@h", "PGHOST", "sqlite", "temp-postgres@17\n",
}

// FuzzParseSpec: ParseSpec never panics; a spec it reads reads back the
// same from its String (the form a result records and a study's cell
// passes on); an error is one line that shows no password.
func FuzzParseSpec(f *testing.F) {
	for _, s := range specSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			checkOneLine(t, s, err)
			return
		}
		again, err := ParseSpec(sp.String())
		if err != nil || again != sp {
			t.Fatalf("ParseSpec(%q) = %+v, whose String %q reads as %+v, %v", s, sp, sp.String(), again, err)
		}
		if sp.Throwaway() && (sp.Remote() || sp.Embedded()) || sp.Remote() && sp.URL == "" {
			t.Fatalf("ParseSpec(%q) = %+v: throwaway %v, remote %v, embedded %v", s, sp, sp.Throwaway(), sp.Remote(), sp.Embedded())
		}
	})
}

// FuzzParseVia: ParseVia never panics; a Via it reads reads back the
// same from its String; an error is one line that shows no password.
func FuzzParseVia(f *testing.F) {
	for _, s := range []string{"direct", "pgbouncer", "postgres://u:secret@h:6432/db", "postgresql://h/db?sslmode=require",
		"postgres://h:0/db", "mysql://u@h/db", "haproxy", "", "Direct", "pgbouncer "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVia(s)
		if err != nil {
			checkOneLine(t, s, err)
			return
		}
		again, err := ParseVia(v.String())
		if err != nil || again != v {
			t.Fatalf("ParseVia(%q) = %+v, whose String %q reads as %+v, %v", s, v, v.String(), again, err)
		}
		if (v.Kind == ViaURL) != (v.Spec() != Spec{}) {
			t.Fatalf("ParseVia(%q) = %+v: its Spec %+v", s, v, v.Spec())
		}
	})
}

// checkOneLine fails an error that is not one line, or that shows the
// password of a URL in the input.
func checkOneLine(t *testing.T, in string, err error) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") && !strings.ContainsAny(in, "\n\r") {
		t.Fatalf("%q: the error is more than one line: %q", in, msg)
	}
	if strings.Contains(in, ":secret@") && strings.Contains(msg, "secret") {
		t.Fatalf("%q: the error shows the password: %q", in, msg)
	}
}

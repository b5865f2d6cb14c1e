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
	fuzzRoundTrip(f, specSeeds, ParseSpec, func(t *testing.T, s string, sp Spec) {
		if sp.Throwaway() && (sp.Remote() || sp.Embedded()) || sp.Remote() && sp.URL == "" {
			t.Fatalf("ParseSpec(%q) = %+v: throwaway %v, remote %v, embedded %v", s, sp, sp.Throwaway(), sp.Remote(), sp.Embedded())
		}
	})
}

// FuzzParseVia: ParseVia never panics; a Via it reads reads back the
// same from its String; an error is one line that shows no password.
func FuzzParseVia(f *testing.F) {
	fuzzRoundTrip(f, []string{"direct", "pgbouncer", "postgres://u:secret@h:6432/db", "postgresql://h/db?sslmode=require",
		"postgres://h:0/db", "mysql://u@h/db", "haproxy", "", "Direct", "pgbouncer "}, ParseVia, func(t *testing.T, s string, v Via) {
		if (v.Kind == ViaURL) != (v.Spec() != Spec{}) {
			t.Fatalf("ParseVia(%q) = %+v: its Spec %+v", s, v, v.Spec())
		}
	})
}

// fuzzRoundTrip fuzzes parse from seeds: it never panics; what it reads
// reads back the same from its String and passes check; an error is one
// line that shows no password.
func fuzzRoundTrip[T interface {
	comparable
	String() string
}](f *testing.F, seeds []string, parse func(string) (T, error), check func(t *testing.T, s string, v T)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parse(s)
		if err != nil {
			checkOneLine(t, s, err)
			return
		}
		again, err := parse(v.String())
		if err != nil || again != v {
			t.Fatalf("%q reads as %+v, whose String %q reads as %+v, %v", s, v, v.String(), again, err)
		}
		check(t, s, v)
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

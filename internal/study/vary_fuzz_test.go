package study

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseVary: ParseVary never panics; a Vary it reads has a name
// and distinct, non-empty values without commas, and reads back the same
// from name=v1,v2,...; an error is one line.
func FuzzParseVary(f *testing.F) {
	for _, s := range []string{"clients=8,16,32", "--clients=1", "db=temp-postgres@16,temp-postgres@17", "pg-conf=a=1,b=2",
		"clients=", "=1,2", "clients=1,,2", "clients=1,1", "clients", " x = 1 , 2 ", "via=pgbouncer,postgres://u:p@h/db", "a=\n", "- -x=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVary(s)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") && !strings.ContainsAny(s, "\n\r") {
				t.Fatalf("ParseVary(%q): the error is more than one line: %q", s, err)
			}
			return
		}
		if v.Key == "" || len(v.Values) == 0 {
			t.Fatalf("ParseVary(%q) = %+v: no name or no values", s, v)
		}
		for i, x := range v.Values {
			if x == "" || strings.Contains(x, ",") || slices.Contains(v.Values[:i], x) {
				t.Fatalf("ParseVary(%q) = %+v: value %q is empty, holds a comma or is given twice", s, v, x)
			}
		}
		again, err := ParseVary(v.Key + "=" + strings.Join(v.Values, ","))
		if err != nil || again.Key != v.Key || !slices.Equal(again.Values, v.Values) {
			t.Fatalf("ParseVary(%q) = %+v, which reads back as %+v, %v", s, v, again, err)
		}
	})
}

package tpcc

import (
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// pg15Banner is what SELECT version() says on Debian 12's PostgreSQL 15.
const pg15Banner = "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit"

// TestGoldenSQL keeps every statement of the workload, per dialect, in
// testdata/schema.sql (go test -update rewrites it): a field's statements
// once where every dialect has the same, else each dialect's under the
// field's name and its own. (One file for the three: three files held the
// same statements three times.)
func TestGoldenSQL(t *testing.T) {
	tg := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "dialect.db"))
	dialects := map[string]target.Dialect{"postgresql-15": target.ParseBanner(pg15Banner), "sqlite": tg.Dialect(),
		"mariadb-10.11": target.ParseBanner("10.11.6-MariaDB-0+deb12u1")}
	names := slices.Sorted(maps.Keys(dialects))
	sections := map[string][]goldenSection{}
	for _, name := range names {
		sections[name] = schemaSections(newSchema(dialects[name].Caps))
	}
	var b strings.Builder
	for i, sec := range sections[names[0]] {
		same := true
		for _, name := range names[1:] {
			same = same && sections[name][i] == sec
		}
		if same {
			b.WriteString("-- " + sec.name + "\n" + sec.sql)
			continue
		}
		for _, name := range names {
			b.WriteString("-- " + sec.name + " (" + name + ")\n" + sections[name][i].sql)
		}
	}
	plain.Golden(t, "schema.sql", b.String())
}

// goldenSection is a field of the schema (or a condition of the check)
// and its statements, each ended by a semicolon and a newline.
type goldenSection struct{ name, sql string }

// schemaSections is every statement of s and of the check, by field.
func schemaSections(s schema) []goldenSection {
	var out []goldenSection
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		if v.Field(i).Kind() == reflect.Struct { // the tables: names, not SQL
			continue
		}
		var b strings.Builder
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			b.WriteString(f.String() + ";\n")
		case reflect.Slice:
			for j := range f.Len() {
				b.WriteString(f.Index(j).String() + ";\n")
			}
		case reflect.Map: // the reads after updates, by update
			keys := f.MapKeys()
			sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
			for _, k := range keys {
				b.WriteString(f.MapIndex(k).String() + ";\n")
			}
		}
		out = append(out, goldenSection{v.Type().Field(i).Name, b.String()})
	}
	for _, c := range conditions {
		out = append(out, goldenSection{c.name, c.sql + ";\n"})
	}
	return out
}

// TestValidate refuses bad options with a message naming the flag.
func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--warehouses", "0"}, "--warehouses 0"},
		{[]string{"--items", "99"}, "--items 99"},
		{[]string{"--customers-per-district", "3001"}, "--customers-per-district 3001"},
		{[]string{"--active-warehouses", "-1"}, "--active-warehouses -1"},
		{[]string{"--warehouses", "2", "--active-warehouses", "3"}, "--active-warehouses 3 is more than --warehouses 2"},
		{[]string{"--check", "some"}, `unknown --check "some"`},
		{[]string{"--mix", "45,43,4,4"}, "give five weights"},
		{[]string{"--mix", "45,43,4,4,x"}, `"x" is not a weight`},
		{[]string{"--mix", "0,0,0,0,0"}, "at least one weight"},
	} {
		if _, err := parseWorkload(tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
	if _, err := parseWorkload(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

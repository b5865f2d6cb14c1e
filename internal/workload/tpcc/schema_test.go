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
// testdata/schema.sql (go test -update rewrites it), under its field's
// name: a line once where every dialect has the same, else each version of
// it once, ended by "-- " and the names of the dialects that have it. (One file for the three, and each
// line once: the dialects differ in a few words.) A field with another
// number of statements, or a statement with another number of lines, in
// some dialect is written whole for each, under "-- field (dialect)".
func TestGoldenSQL(t *testing.T) {
	tg := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "dialect.db"))
	dialects := map[string]target.Dialect{"postgresql-15": target.ParseBanner(pg15Banner), "sqlite": tg.Dialect(),
		"mariadb-10.11": target.ParseBanner("10.11.6-MariaDB-0+deb12u1")}
	names := slices.Sorted(maps.Keys(dialects))
	fields := map[string][]goldenField{}
	for _, name := range names {
		fields[name] = schemaFields(newSchema(dialects[name].Caps))
	}
	var b strings.Builder
	heading := ""
	write := func(h string, lines ...string) {
		if h != heading {
			b.WriteString("-- " + h + "\n")
			heading = h
		}
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	// lines is, for each dialect, its j-th statement of field i, by line,
	// or nil where the dialects do not line up.
	lines := func(i, j int) [][]string {
		var out [][]string
		for _, name := range names {
			f := fields[name][i]
			if len(f.sqls) != len(fields[names[0]][i].sqls) {
				return nil
			}
			out = append(out, strings.Split(f.sqls[j]+";", "\n"))
			if len(out[len(out)-1]) != len(out[0]) {
				return nil
			}
		}
		return out
	}
	for i, f := range fields[names[0]] {
		for j := range f.sqls {
			each := lines(i, j)
			if each == nil {
				for _, name := range names {
					write(f.name+" ("+name+")", strings.Split(strings.Join(fields[name][i].sqls, ";\n")+";", "\n")...)
				}
				break
			}
			for k, l := range each[0] {
				same := true
				for _, other := range each[1:] {
					same = same && other[k] == l
				}
				if same {
					write(f.name, l)
					continue
				}
				var texts []string // each dialect's line once, with the dialects that have it
				by := map[string][]string{}
				for d, other := range each {
					if by[other[k]] == nil {
						texts = append(texts, other[k])
					}
					by[other[k]] = append(by[other[k]], names[d])
				}
				for _, text := range texts {
					write(f.name, text+" -- "+strings.Join(by[text], ", "))
				}
			}
		}
	}
	plain.Golden(t, "schema.sql", b.String())
}

// goldenField is a field of the schema (or a condition of the check) and
// its statements.
type goldenField struct {
	name string
	sqls []string
}

// schemaFields is every statement of s and of the check, by field.
func schemaFields(s schema) []goldenField {
	var out []goldenField
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		var sqls []string
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			sqls = append(sqls, f.String())
		case reflect.Slice:
			for j := range f.Len() {
				sqls = append(sqls, f.Index(j).String())
			}
		case reflect.Map: // the reads after updates, by update
			keys := f.MapKeys()
			sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
			for _, k := range keys {
				sqls = append(sqls, f.MapIndex(k).String())
			}
		default: // the tables (a struct): names, not SQL
			continue
		}
		out = append(out, goldenField{v.Type().Field(i).Name, sqls})
	}
	for _, c := range conditions {
		out = append(out, goldenField{c.name, []string{c.sql}})
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

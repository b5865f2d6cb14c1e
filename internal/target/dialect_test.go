package target_test

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
)

const (
	ginDDL   = "CREATE INDEX events_jsonb_payload_idx ON events_jsonb USING gin (payload)"
	crdbDDL  = "CREATE INVERTED INDEX events_jsonb_payload_idx ON events_jsonb (payload)"
	ybginDDL = "CREATE INDEX events_jsonb_payload_idx ON events_jsonb USING ybgin (payload)"
)

func TestParseBanner(t *testing.T) {
	tests := []struct {
		name, banner, dialect, version string
		genCols, retries               bool
		indexDDL                       string
	}{
		{"PostgreSQL 15 on Debian", "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14+deb12u1) 12.2.0, 64-bit", "PostgreSQL", "15.18", true, false, ginDDL},
		{"PostgreSQL 11 has no generated columns", "PostgreSQL 11.22 (Debian 11.22-1.pgdg120+1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit", "PostgreSQL", "11.22", false, false, ginDDL},
		{"PostgreSQL 12 is the first with generated columns", "PostgreSQL 12.0 on x86_64-pc-linux-gnu, compiled by gcc 8.3.0, 64-bit", "PostgreSQL", "12.0", true, false, ginDDL},
		{"PostgreSQL 17", "PostgreSQL 17.2 on aarch64-unknown-linux-gnu, compiled by gcc (GCC) 12.4.0, 64-bit", "PostgreSQL", "17.2", true, false, ginDDL},
		{"PostgreSQL without a minor version", "PostgreSQL 16 on x86_64-pc-linux-gnu", "PostgreSQL", "16", true, false, ginDDL},
		{"CockroachDB", "CockroachDB CCL v23.2.1 (x86_64-pc-linux-gnu, built 2024/01/16 14:48:46, go1.21.5 X:nocoverageredesign)", "CockroachDB", "v23.2.1", true, true, crdbDDL},
		{"CockroachDB OSS pre-release", "CockroachDB OSS v24.1.0-alpha.3 (x86_64-unknown-linux-gnu, built 2024/03/01 00:00:00, go1.22.0)", "CockroachDB", "v24.1.0-alpha.3", true, true, crdbDDL},
		{"YugabyteDB on PostgreSQL 11", "PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 16.0.6 (https://github.com/yugabyte/llvm-project.git 1e6329f40e5c531c09ade7015278078682293ebd), 64-bit", "YugabyteDB", "2.20.1.0", false, true, ybginDDL},
		{"YugabyteDB on PostgreSQL 15", "PostgreSQL 15.2-YB-2.25.0.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 17.0.6, 64-bit", "YugabyteDB", "2.25.0.0", true, true, ybginDDL},
		// Reached only through a postgres:// URL, so an unknown banner
		// is taken for a PostgreSQL-compatible server of no known version.
		{"unknown banner", "SomeWireCompatibleDB 3.1 (build 42)", "PostgreSQL", "", true, false, ginDDL},
		{"empty banner", "", "PostgreSQL", "", true, false, ginDDL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := target.ParseBanner(tc.banner)
			if d.Name != tc.dialect || d.Version != tc.version || d.Banner != tc.banner {
				t.Errorf("ParseBanner: got Name %q Version %q Banner %q, want %q %q %q",
					d.Name, d.Version, d.Banner, tc.dialect, tc.version, tc.banner)
			}
			c := d.Caps
			// Every PostgreSQL-wire dialect has these.
			if !c.SkipLocked || !c.JSONB || !c.Enums || !c.ArrayParams {
				t.Errorf("SkipLocked %v JSONB %v Enums %v ArrayParams %v, want all true",
					c.SkipLocked, c.JSONB, c.Enums, c.ArrayParams)
			}
			if c.GeneratedColumns != tc.genCols {
				t.Errorf("GeneratedColumns = %v, want %v", c.GeneratedColumns, tc.genCols)
			}
			if c.RetriesSerialization != tc.retries {
				t.Errorf("RetriesSerialization = %v, want %v", c.RetriesSerialization, tc.retries)
			}
			if want := tc.dialect == "PostgreSQL"; c.AdvisoryLocks != want {
				t.Errorf("AdvisoryLocks = %v, want %v", c.AdvisoryLocks, want)
			}
			if got := c.InvertedIndexDDL("events_jsonb_payload_idx", "events_jsonb", "payload"); got != tc.indexDDL {
				t.Errorf("InvertedIndexDDL = %q, want %q", got, tc.indexDDL)
			}
			if c.UUIDType != "uuid" || c.JSONType != "jsonb" || c.TimestampType != "timestamptz" || c.Now != "now()" {
				t.Errorf("types = %q %q %q %q, want uuid jsonb timestamptz now()", c.UUIDType, c.JSONType, c.TimestampType, c.Now)
			}
		})
	}
}

// TestStatViewsAndPostgresDDL: what telemetry and pgbench's
// initialisation ask of a dialect is a capability, PostgreSQL's alone for
// the statistics views, the PostgreSQL family's for the DDL.
func TestStatViewsAndPostgresDDL(t *testing.T) {
	for _, tc := range []struct {
		banner                 string
		statViews, postgresDDL bool
	}{
		{"PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu", true, true},
		{"CockroachDB CCL v23.2.1 (x86_64-pc-linux-gnu, built 2024/01/16 14:48:46, go1.21.5)", false, true},
		{"PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu", false, true},
	} {
		c := target.ParseBanner(tc.banner).Caps
		if c.StatViews != tc.statViews || c.PostgresDDL != tc.postgresDDL {
			t.Errorf("%s: StatViews %v, PostgresDDL %v; want %v, %v", tc.banner, c.StatViews, c.PostgresDDL, tc.statViews, tc.postgresDDL)
		}
	}
}

func TestInvertedIndexDDLUnsupported(t *testing.T) {
	for _, c := range []target.Capabilities{
		{},
		{JSONB: true, SkipLocked: true, GeneratedColumns: true},
	} {
		if got := c.InvertedIndexDDL("i", "t", "c"); got != "" {
			t.Errorf("InvertedIndexDDL without a template = %q, want \"\"", got)
		}
	}
}

func TestInvertedIndexDDLReplacesEveryPlaceholder(t *testing.T) {
	c := target.Capabilities{InvertedIndex: "{name}/{table}/{column}/{name}"}
	if got, want := c.InvertedIndexDDL("n", "t", "c"), "n/t/c/n"; got != want {
		t.Errorf("InvertedIndexDDL = %q, want %q", got, want)
	}
	// Values are inserted literally, never expanded again.
	if got, want := c.InvertedIndexDDL("{table}", "x", "y"), "{table}/x/y/{table}"; got != want {
		t.Errorf("InvertedIndexDDL = %q, want %q", got, want)
	}
}

// FuzzParseBanner checks that any banner gives a known dialect whose
// version is taken from the banner, and that ParseBanner never panics.
func FuzzParseBanner(f *testing.F) {
	for _, s := range []string{
		"PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu",
		"CockroachDB CCL v23.2.1 (x86_64-pc-linux-gnu, built 2024/01/16)",
		"PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu",
		"PostgreSQL 99999999999999999999.1",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, banner string) {
		d := target.ParseBanner(banner)
		if d.Banner != banner {
			t.Fatalf("Banner = %q, want %q", d.Banner, banner)
		}
		switch d.Name {
		case "PostgreSQL", "CockroachDB", "YugabyteDB":
		default:
			t.Fatalf("Name = %q", d.Name)
		}
		if marker := map[string]string{"CockroachDB": "CockroachDB ", "YugabyteDB": "-YB-"}[d.Name]; !strings.Contains(banner, marker) {
			t.Fatalf("Name %q but the banner lacks %q: %q", d.Name, marker, banner)
		}
		if !strings.Contains(banner, d.Version) {
			t.Fatalf("Version %q does not occur in %q", d.Version, banner)
		}
		if d.Caps.InvertedIndexDDL("n", "t", "c") == "" {
			t.Fatalf("a PostgreSQL-wire dialect lost its inverted index")
		}
	})
}

// TestListenNotify: LISTEN/NOTIFY is PostgreSQL's alone among the
// PostgreSQL-wire dialects (CockroachDB and YugabyteDB refuse LISTEN).
func TestListenNotify(t *testing.T) {
	for banner, want := range map[string]bool{
		"PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu":                   true,
		"CockroachDB CCL v23.2.1 (x86_64-pc-linux-gnu, built 2024/01/16 14:48:46, go1.21.5)": false,
		"PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu":                              false,
	} {
		if got := target.ParseBanner(banner).Caps.ListenNotify; got != want {
			t.Errorf("%s: ListenNotify %v, want %v", banner, got, want)
		}
	}
}

// TestParseMySQLBanner: MariaDB and MySQL servers' version() banners give
// their dialect and the capabilities workloads read.
func TestParseMySQLBanner(t *testing.T) {
	for _, c := range []struct {
		banner, name, version        string
		skipLocked, jsonb, jsonTable bool
	}{
		{"10.11.19-MariaDB-0+deb12u1", "MariaDB", "10.11.19", true, false, true},
		{"10.5.23-MariaDB", "MariaDB", "10.5.23", false, false, false},
		{"8.0.36", "MySQL", "8.0.36", true, true, true},
		{"5.7.44-log", "MySQL", "5.7.44", false, false, false},
	} {
		d := target.ParseBanner(c.banner)
		k := d.Caps
		if d.Name != c.name || d.Version != c.version || k.SkipLocked != c.skipLocked || k.JSONB != c.jsonb || k.JSONTable != c.jsonTable ||
			k.ListenNotify || k.StatViews || k.AdvisoryLocks || k.PostgresDDL || k.ArrayParams || !k.GeneratedColumns || k.InvertedIndex != "" {
			t.Errorf("%q: %s %s %+v", c.banner, d.Name, d.Version, k)
		}
		if k.KeyTextType() != "VARCHAR(255)" || k.AnalyzeSQL("t") != "ANALYZE TABLE t" {
			t.Errorf("%q: key text %q, analyze %q", c.banner, k.KeyTextType(), k.AnalyzeSQL("t"))
		}
		// MariaDB has DELETE ... RETURNING but no UPDATE ... RETURNING;
		// neither has modifying CTEs.
		if k.UpdateReturning || k.ModifyingCTEs || k.DeleteReturning != (c.name == "MariaDB") {
			t.Errorf("%q: UPDATE/DELETE ... RETURNING %v/%v, modifying CTEs %v", c.banner, k.UpdateReturning, k.DeleteReturning, k.ModifyingCTEs)
		}
	}
	if k := target.ParseBanner("PostgreSQL 15.18").Caps; !k.UpdateReturning || !k.DeleteReturning || !k.ModifyingCTEs {
		t.Errorf("PostgreSQL: UPDATE/DELETE ... RETURNING %v/%v, modifying CTEs %v", k.UpdateReturning, k.DeleteReturning, k.ModifyingCTEs)
	}
	if k := target.ParseBanner("PostgreSQL 15.18").Caps; k.KeyTextType() != "TEXT" || k.AnalyzeSQL("t") != "ANALYZE t" {
		t.Errorf("PostgreSQL: key text %q, analyze %q", k.KeyTextType(), k.AnalyzeSQL("t"))
	}
}

// TestTimestampText: MySQL's DATETIME takes no zone, so a load's RFC 3339
// times are spelled without one; other dialects take them as they are.
func TestTimestampText(t *testing.T) {
	const ts = "2025-01-01T00:00:00.000Z"
	if got := target.ParseBanner("10.11.6-MariaDB-0+deb12u1").Caps.TimestampText(ts); got != "2025-01-01 00:00:00.000000" {
		t.Errorf("MariaDB: %q", got)
	}
	if got := target.ParseBanner("PostgreSQL 15.18").Caps.TimestampText(ts); got != ts {
		t.Errorf("PostgreSQL: %q", got)
	}
}

package workflow

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// render is every statement of s, named, for a golden file.
func render(s schema) string {
	var b strings.Builder
	add := func(name, q string) {
		if q != "" {
			fmt.Fprintf(&b, "-- %s\n%s;\n\n", name, q)
		}
	}
	for i, q := range s.drop {
		add(fmt.Sprint("drop ", i+1), q)
	}
	for i, q := range s.ddl {
		add(fmt.Sprint("ddl ", i+1), q)
	}
	for _, st := range [][2]string{
		{"start", s.start}, {"publish", s.publish}, {"publish by key", s.publishByKey}, {"key id", s.keyID}, {"insert signals", s.insertSignals},
		{"notify", s.notify}, {"read instance", s.readInstance}, {"claim", s.claim}, {"pick", s.pick}, {"lease", s.lease}, {"read version", s.readVersion},
		{"advance", s.advance}, {"take signal", s.takeSignal}, {"insert history", s.insertHistory}, {"retry later", s.retryLater},
		{"insert dead", s.insertDead}, {"fail instance", s.failInstance}, {"release leases", s.releaseLeases},
		{"max instance", s.maxInstance}, {"leases held", s.leasesHeld},
	} {
		add(st[0], st[1])
	}
	for _, q := range s.checkCounts {
		add("check "+q.name, q.sql)
	}
	return b.String()
}

// TestSchemaGolden: the SQL per dialect, two signals per workflow: row
// locks skipped where the dialect has them, pg_notify where it has
// LISTEN/NOTIFY.
func TestSchemaGolden(t *testing.T) {
	lite := openTarget(t, "sqlite:"+filepath.Join(t.TempDir(), "d.db")).Dialect()
	for _, tc := range []struct {
		name string
		d    target.Dialect
	}{
		{"postgresql", target.ParseBanner("PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu")},
		{"cockroachdb", target.ParseBanner("CockroachDB CCL v23.2.1 (x86_64-pc-linux-gnu, built 2024/01/16 14:48:46, go1.21.5)")},
		{"sqlite", lite},
		{"mariadb", target.ParseBanner("10.11.19-MariaDB-0+deb12u1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSchema(tc.d.Caps, 2, tc.d.Caps.ListenNotify)
			got := render(s)
			if strings.Contains(got, "SKIP LOCKED") != tc.d.Caps.SkipLocked || strings.Contains(got, "pg_notify") != tc.d.Caps.ListenNotify {
				t.Errorf("%s: SKIP LOCKED or pg_notify where the dialect has none", tc.name)
			}
			if strings.Contains(got, "RETURNING") != tc.d.Caps.UpdateReturning || (s.claim == "") != (s.pick != "" && s.lease != "") {
				t.Errorf("%s: UPDATE ... RETURNING where the dialect has none, or no claim", tc.name)
			}
			plain.Golden(t, "schema_"+tc.name+".golden", got)
		})
	}
}

package trainevents

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
	"github.com/txnbench/txnbench/internal/workload"
)

// Realistic banners of SELECT version() for the PostgreSQL family.
var banners = map[string]string{
	"postgresql-15":   "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit",
	"postgresql-11":   "PostgreSQL 11.22 (Debian 11.22-1.pgdg120+1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit",
	"cockroachdb":     "CockroachDB CCL v23.2.1 (x86_64-pc-linux-gnu, built 2024/02/12 18:22:47, go1.21.5 X:nocoverageredesign)",
	"yugabytedb-2.20": "PostgreSQL 11.2-YB-2.20.1.3-b0 on x86_64-pc-linux-gnu, compiled by clang version 16.0.6 (https://github.com/yugabyte/llvm-project.git 1e6329f40e5c531c09ade7015278078682293ebd), 64-bit",
}

// dialectNames are the dialects of the golden files, in order.
var dialectNames = []string{"postgresql-15", "postgresql-11", "cockroachdb", "yugabytedb-2.20", "sqlite"}

var presetOrder = []string{"jsonb", "manual", "text"}

func pgFamily(dialect string) bool { return dialect != "sqlite" }

// testDialects returns the dialects by name: the PostgreSQL family from
// their banners, SQLite from a real temporary database.
func testDialects(t *testing.T) map[string]target.Dialect {
	t.Helper()
	ds := map[string]target.Dialect{}
	for _, n := range dialectNames {
		if n != "sqlite" {
			ds[n] = target.ParseBanner(banners[n])
		}
	}
	tg := testutil.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "dialect.db"))
	ds["sqlite"] = tg.Dialect()
	return ds
}

// TestTestDialects makes sure the banners stand for what the goldens say.
func TestTestDialects(t *testing.T) {
	ds := testDialects(t)
	tests := []struct {
		dialect, name, version string
		generated, skipLocked  bool
		arrays                 bool
	}{
		{"postgresql-15", "PostgreSQL", "15.18", true, true, true},
		{"postgresql-11", "PostgreSQL", "11.22", false, true, true},
		{"cockroachdb", "CockroachDB", "v23.2.1", true, true, true},
		{"yugabytedb-2.20", "YugabyteDB", "2.20.1.3", false, true, true},
		{"sqlite", "SQLite", "", true, false, false},
	}
	for _, tt := range tests {
		d := ds[tt.dialect]
		if d.Name != tt.name || (tt.version != "" && d.Version != tt.version) ||
			d.Caps.GeneratedColumns != tt.generated || d.Caps.SkipLocked != tt.skipLocked || d.Caps.ArrayParams != tt.arrays {
			t.Errorf("%s: got %s %s %+v", tt.dialect, d.Name, d.Version, d.Caps)
		}
	}
}

// newTestWorkload parses args into a fresh workload and validates it.
func newTestWorkload(t *testing.T, args ...string) *Workload {
	t.Helper()
	w := &Workload{}
	if err := workload.Parse(w, args...); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return w
}

// boundWorkload is preset fitted to dialect d, as Init would fit it.
func boundWorkload(t *testing.T, preset string, d target.Dialect) *Workload {
	t.Helper()
	w := newTestWorkload(t, "--variant", preset)
	w.bind(d)
	return w
}

// statements lists every op statement of s with its label.
func statements(s schema) [][2]string {
	return [][2]string{
		{"insertEvents", s.insertEvents},
		{"insertStatus", s.insertStatus},
		{"selectProcess", s.selectProcess},
		{"updateStatus", s.updateStatus},
		{"updatePayload", s.updatePayload},
		{"selectArchive", s.selectArchive},
		{"copyArchive", s.copyArchive},
		{"deleteEvents", s.deleteEvents},
		{"countTotal", s.countTotal},
	}
}

// render is the golden text of one bound workload.
func render(w *Workload, dialect string, d target.Dialect) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# train-events --variant %s on %s (%s)\n", w.preset, dialect, d.Name)
	fmt.Fprintf(&b, "# effective: payload %s, flat columns %s, inverted index %v\n\n", w.eff.payloadType(), w.eff.flatColumns(), w.eff.InvertedIndex)
	b.WriteString("-- notes\n")
	if len(w.notes) == 0 {
		b.WriteString("(none)\n")
	}
	for _, n := range w.notes {
		b.WriteString(n + "\n")
	}
	for i, q := range w.sql.ddl {
		fmt.Fprintf(&b, "\n-- ddl %d\n%s;\n", i+1, q)
	}
	for i, q := range w.sql.drop {
		fmt.Fprintf(&b, "\n-- drop %d\n%s;\n", i+1, q)
	}
	for _, st := range statements(w.sql) {
		fmt.Fprintf(&b, "\n-- %s\n%s;\n", st[0], st[1])
	}
	return b.String()
}

func TestSchemaGolden(t *testing.T) {
	ds := testDialects(t)
	for _, dn := range dialectNames {
		for _, p := range presetOrder {
			t.Run(dn+"/"+p, func(t *testing.T) {
				w := boundWorkload(t, p, ds[dn])
				got := render(w, dn, ds[dn])
				plain.Golden(t, "schema_"+dn+"_"+p+".golden", got)
			})
		}
	}
}

// TestSchemaProperties asserts what must hold whatever the goldens say.
func TestSchemaProperties(t *testing.T) {
	ds := testDialects(t)
	for _, dn := range dialectNames {
		d := ds[dn]
		for _, p := range presetOrder {
			t.Run(dn+"/"+p, func(t *testing.T) {
				w := boundWorkload(t, p, d)
				s := w.sql
				ddl := strings.Join(s.ddl, ";\n")
				all := ddl + "\n" + strings.Join(s.drop, "\n")
				for _, st := range statements(s) {
					if st[1] == "" {
						t.Errorf("%s is empty", st[0])
					}
					all += "\n" + st[1]
				}

				// Table names carry the preset, adapted or not.
				if s.events != "events_"+p || s.status != "events_"+p+"_status" || s.archive != "events_"+p+"_archive" {
					t.Errorf("tables %s, %s, %s; want events_%s[_status|_archive]", s.events, s.status, s.archive, p)
				}
				for _, tbl := range []string{s.events, s.status, s.archive} {
					if !strings.Contains(ddl, "CREATE TABLE "+tbl+" (") {
						t.Errorf("no CREATE TABLE %s", tbl)
					}
				}
				if want := []string{"DROP TABLE IF EXISTS " + s.archive, "DROP TABLE IF EXISTS " + s.status, "DROP TABLE IF EXISTS " + s.events}; !slices.Equal(s.drop[:3], want) {
					t.Errorf("drop order %q, want %q", s.drop[:3], want)
				}
				if strings.Contains(ddl, "ON "+s.archive) {
					t.Errorf("the archive has a secondary index:\n%s", ddl)
				}
				for _, idx := range []string{"ON " + s.events + " (event_type, created_at DESC)", "ON " + s.events + " (authority_id)", "ON " + s.status + " (status, updated_at)"} {
					if !strings.Contains(ddl, idx) {
						t.Errorf("no index %s", idx)
					}
				}
				if !strings.Contains(ddl, "REFERENCES "+s.events+" (id) ON DELETE CASCADE") {
					t.Error("the status table does not reference events with ON DELETE CASCADE")
				}

				// Row locks: SKIP LOCKED on the PostgreSQL family, none on SQLite.
				if pgFamily(dn) {
					for _, q := range []string{s.selectProcess, s.selectArchive} {
						if !strings.Contains(q, "FOR UPDATE SKIP LOCKED") {
							t.Errorf("no FOR UPDATE SKIP LOCKED in %s", q)
						}
					}
				} else if strings.Contains(all, "FOR UPDATE") {
					t.Errorf("SQLite statements lock rows:\n%s", all)
				}

				// Inverted index per dialect.
				inv := map[string]string{
					"postgresql-15":   "CREATE INDEX events_jsonb_payload_inv ON events_jsonb USING gin (payload)",
					"postgresql-11":   "CREATE INDEX events_jsonb_payload_inv ON events_jsonb USING gin (payload)",
					"cockroachdb":     "CREATE INVERTED INDEX events_jsonb_payload_inv ON events_jsonb (payload)",
					"yugabytedb-2.20": "CREATE INDEX events_jsonb_payload_inv ON events_jsonb USING ybgin (payload)",
				}
				hasInv := strings.Contains(ddl, "_payload_inv")
				switch {
				case p == "jsonb" && pgFamily(dn):
					if !slices.Contains(s.ddl, inv[dn]) {
						t.Errorf("no %q in\n%s", inv[dn], ddl)
					}
					if !w.eff.InvertedIndex {
						t.Error("the effective variant lost its inverted index")
					}
				case p == "jsonb":
					if hasInv || strings.Contains(ddl, "gin") {
						t.Errorf("SQLite got an inverted index:\n%s", ddl)
					}
					if !slices.ContainsFunc(w.notes, func(n string) bool { return strings.Contains(n, "no inverted index") }) {
						t.Errorf("no note on the missing inverted index: %q", w.notes)
					}
					if w.eff.InvertedIndex {
						t.Error("the effective variant keeps an inverted index SQLite does not have")
					}
				default:
					if hasInv {
						t.Errorf("preset %s got an inverted index", p)
					}
				}

				// Generated columns, or a note that they were adapted away.
				generated := p != "manual" && d.Caps.GeneratedColumns
				if got := strings.Contains(ddl, "GENERATED ALWAYS AS"); got != generated {
					t.Errorf("generated columns %v, want %v:\n%s", got, generated, ddl)
				}
				noted := slices.ContainsFunc(w.notes, func(n string) bool { return strings.Contains(n, "no generated columns") })
				if want := p != "manual" && !d.Caps.GeneratedColumns; noted != want {
					t.Errorf("note on generated columns %v, want %v: %q", noted, want, w.notes)
				}
				if w.eff.ManualColumns != !generated {
					t.Errorf("effective manual columns %v, want %v", w.eff.ManualColumns, !generated)
				}
				if p == "text" && generated && pgFamily(dn) {
					for _, e := range []string{"(payload::jsonb)->>'eventType'", "((payload::jsonb)->>'authorityId')::uuid", "(payload::jsonb)->'train'->>'trainId'"} {
						if !strings.Contains(ddl, e) {
							t.Errorf("no %s in the text preset's generated columns:\n%s", e, ddl)
						}
					}
				}
				if p == "text" && !strings.Contains(ddl, "payload TEXT NOT NULL") {
					t.Errorf("text preset without a TEXT payload:\n%s", ddl)
				}
				if p != "text" && !strings.Contains(ddl, "payload "+d.Caps.JSONType+" NOT NULL") {
					t.Errorf("%s preset without a %s payload:\n%s", p, d.Caps.JSONType, ddl)
				}

				// An enum where the application writes event_type and the dialect has enums.
				enumType := s.events + "_event_type"
				wantEnum := w.eff.ManualColumns && d.Caps.Enums
				if got := strings.Contains(ddl, "CREATE TYPE "+enumType+" AS ENUM ("+inList(eventTypes)+")"); got != wantEnum {
					t.Errorf("enum type %v, want %v:\n%s", got, wantEnum, ddl)
				}
				if wantEnum {
					if !strings.Contains(s.insertEvents, "$2::"+enumType+"[]") {
						t.Errorf("insert does not pass an enum array: %s", s.insertEvents)
					}
					if !strings.Contains(ddl, "event_type "+enumType+" NOT NULL,\n  authority_id") {
						t.Errorf("events.event_type is not the enum:\n%s", ddl)
					}
				}
				if d.Caps.Enums && !slices.Contains(s.drop, "DROP TYPE IF EXISTS "+enumType) {
					t.Errorf("the enum is not dropped: %q", s.drop)
				}
				if !d.Caps.Enums && strings.Contains(all, "TYPE") {
					t.Errorf("enum DDL on a dialect without enums:\n%s", all)
				}
			})
		}
	}
}

// TestManualEventArgs checks the arguments of the manual preset's insert
// on the PostgreSQL family: typed arrays, the event types as the enum's
// labels, in the order of the statement's parameters.
func TestManualEventArgs(t *testing.T) {
	for _, dn := range []string{"postgresql-15", "cockroachdb"} {
		w := boundWorkload(t, "manual", target.ParseBanner(banners[dn]))
		c := w.newClient(rand.New(rand.NewPCG(1, 2)), 0)
		c.gen.now = func() time.Time { return fixedNow }
		c.NextCycle()
		b := new(batch)
		c.gen.fill(b, c.n)
		args := c.eventArgs(b)
		if len(args) != 5 {
			t.Fatalf("%s: %d arguments, want 5", dn, len(args))
		}
		ids, _ := args[0].([][16]byte)
		types, _ := args[1].([]string)
		auths, _ := args[2].([][16]byte)
		trains, _ := args[3].([][]byte)
		payloads, _ := args[4].([][]byte)
		n := len(b.events)
		if len(ids) != n || len(payloads) != n || len(types) != n || len(auths) != n || len(trains) != n {
			t.Fatalf("%s: argument lengths %d %d %d %d %d, want %d", dn, len(ids), len(payloads), len(types), len(auths), len(trains), n)
		}
		for i, e := range b.events {
			if ids[i] != e.id || string(payloads[i]) != string(e.payload) || types[i] != e.eventType || auths[i] != e.authorityID || string(trains[i]) != string(e.trainID) {
				t.Fatalf("%s: argument row %d does not match event %d", dn, i, i)
			}
			if !slices.Contains(eventTypes, types[i]) {
				t.Fatalf("%s: event type %q is no enum label", dn, types[i])
			}
		}
	}
	// The generated presets pass only ids and payloads.
	w := boundWorkload(t, "jsonb", target.ParseBanner(banners["postgresql-15"]))
	c := w.newClient(rand.New(rand.NewPCG(1, 2)), 0)
	c.NextCycle()
	b := new(batch)
	c.gen.fill(b, c.n)
	if args := c.eventArgs(b); len(args) != 2 {
		t.Errorf("jsonb preset passes %d arguments to its insert, want 2", len(args))
	}
}

func TestAdapt(t *testing.T) {
	full := target.ParseBanner(banners["postgresql-15"]).Caps
	noGen := full
	noGen.GeneratedColumns = false
	noInv := full
	noInv.InvertedIndex = ""
	neither := noGen
	neither.InvertedIndex = ""
	tests := []struct {
		name  string
		in    variant
		caps  target.Capabilities
		want  variant
		notes int
	}{
		{"jsonb on full", presets["jsonb"], full, presets["jsonb"], 0},
		{"jsonb without generated", presets["jsonb"], noGen, variant{ManualColumns: true, InvertedIndex: true}, 1},
		{"jsonb without inverted", presets["jsonb"], noInv, variant{}, 1},
		{"jsonb without either", presets["jsonb"], neither, variant{ManualColumns: true}, 2},
		{"manual without either", presets["manual"], neither, presets["manual"], 0},
		{"text without generated", presets["text"], noGen, variant{TextPayload: true, ManualColumns: true}, 1},
		{"text on full", presets["text"], full, presets["text"], 0},
	}
	for _, tt := range tests {
		got, notes := adapt(tt.in, tt.caps, "TestDB")
		if got != tt.want || len(notes) != tt.notes {
			t.Errorf("%s: adapt = %+v, %q; want %+v with %d notes", tt.name, got, notes, tt.want, tt.notes)
		}
		for _, n := range notes {
			if !strings.HasPrefix(n, "TestDB ") {
				t.Errorf("%s: note %q does not name the dialect", tt.name, n)
			}
		}
	}
}

func TestSettingsAfterAdapt(t *testing.T) {
	w := boundWorkload(t, "jsonb", target.ParseBanner(banners["postgresql-11"]))
	s := w.Settings()
	if s["variant"] != "jsonb" || s["payload"] != "jsonb" || s["flat_columns"] != "manual" || s["inverted_index"] != true {
		t.Errorf("settings %v", s)
	}
	if notes := w.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "PostgreSQL has no generated columns") {
		t.Errorf("notes %v", notes)
	}
	if _, ok := s["notes"]; ok {
		t.Errorf("notes among the settings: %v", s)
	}
	w = boundWorkload(t, "text", target.ParseBanner(banners["postgresql-15"]))
	if s := w.Settings(); s["payload"] != "text" || s["flat_columns"] != "generated" || s["inverted_index"] != false || w.Notes() != nil {
		t.Errorf("settings %v, notes %v", s, w.Notes())
	}
}

func TestVariantValidate(t *testing.T) {
	tests := []struct {
		v  variant
		ok bool
	}{
		{variant{}, true},
		{variant{InvertedIndex: true}, true},
		{variant{ManualColumns: true, InvertedIndex: true}, true},
		{variant{TextPayload: true}, true},
		{variant{TextPayload: true, ManualColumns: true}, true},
		{variant{TextPayload: true, InvertedIndex: true}, false},
		{variant{TextPayload: true, ManualColumns: true, InvertedIndex: true}, false},
	}
	for _, tt := range tests {
		err := tt.v.validate()
		if (err == nil) != tt.ok {
			t.Errorf("%+v.validate() = %v, want ok %v", tt.v, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "--inverted-index") {
			t.Errorf("%+v.validate() = %v: does not name --inverted-index", tt.v, err)
		}
	}
}

func TestVariantNames(t *testing.T) {
	tests := []struct {
		args []string
		name string
		v    variant
	}{
		{nil, "jsonb", variant{InvertedIndex: true}},
		{[]string{"--variant", "jsonb"}, "jsonb", variant{InvertedIndex: true}},
		{[]string{"--variant", "manual"}, "manual", variant{ManualColumns: true}},
		{[]string{"--variant", "text"}, "text", variant{TextPayload: true}},
		{[]string{"--variant", "text", "--flat-columns", "manual"}, "text_manual", variant{TextPayload: true, ManualColumns: true}},
		{[]string{"--variant", "jsonb", "--inverted-index=false"}, "jsonb_generated", variant{}},
		{[]string{"--variant", "manual", "--inverted-index"}, "jsonb_manual_inverted", variant{ManualColumns: true, InvertedIndex: true}},
		{[]string{"--variant", "manual", "--flat-columns", "generated"}, "jsonb_generated", variant{}},
		{[]string{"--variant", "manual", "--flat-columns", "generated", "--inverted-index"}, "jsonb", variant{InvertedIndex: true}},
		{[]string{"--variant", "manual", "--payload", "text"}, "text_manual", variant{TextPayload: true, ManualColumns: true}},
		{[]string{"--variant", "text", "--payload", "jsonb"}, "jsonb_generated", variant{}},
		{[]string{"--variant", "text", "--payload", "text", "--flat-columns", "generated"}, "text", variant{TextPayload: true}},
	}
	for _, tt := range tests {
		w := newTestWorkload(t, tt.args...)
		if w.v != tt.v || w.v.name() != tt.name {
			t.Errorf("%q: variant %+v named %q, want %+v named %q", tt.args, w.v, w.v.name(), tt.v, tt.name)
		}
		w.bind(target.ParseBanner(banners["postgresql-15"]))
		if w.sql.events != "events_"+tt.name {
			t.Errorf("%q: table %s, want events_%s", tt.args, w.sql.events, tt.name)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		args []string
		flag string // the error must name it
	}{
		{[]string{"--variant", "bogus"}, "--variant"},
		{[]string{"--variant", "JSONB"}, "--variant"},
		{[]string{"--payload", "xml"}, "--payload"},
		{[]string{"--flat-columns", "virtual"}, "--flat-columns"},
		{[]string{"--rows", "-1"}, "--rows"},
		{[]string{"--min-batch", "0"}, "--min-batch"},
		{[]string{"--min-batch", "-5"}, "--min-batch"},
		{[]string{"--min-batch", "20", "--max-batch", "10"}, "--max-batch"},
		{[]string{"--delay", "-1ms"}, "--delay"},
		{[]string{"--think-min", "-1ms"}, "--think-min"},
		{[]string{"--think-min", "60ms", "--think-max", "50ms"}, "--think-max"},
		{[]string{"--variant", "text", "--inverted-index"}, "--inverted-index"},
		{[]string{"--payload", "text"}, "--inverted-index"}, // the jsonb preset's index needs JSONB
	}
	for _, tt := range tests {
		w := &Workload{}
		fs := pflag.NewFlagSet("train-events", pflag.ContinueOnError)
		w.Flags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("parsing %q: %v", tt.args, err)
		}
		err := w.Validate()
		if err == nil {
			t.Errorf("%q: Validate accepted it", tt.args)
			continue
		}
		if !strings.Contains(err.Error(), tt.flag) {
			t.Errorf("%q: error %q does not name %s", tt.args, err, tt.flag)
		}
	}
}

func TestValidateAccepts(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--rows", "0"},
		{"--min-batch", "1", "--max-batch", "1"},
		{"--delay", "0", "--think-min", "0", "--think-max", "0"},
		{"--think-min", "5ms", "--think-max", "5ms"},
		{"--variant", "text", "--inverted-index=false"},
	} {
		newTestWorkload(t, args...) // fails the test on error
	}
	// Validate without Flags uses the zero options: it must not panic.
	w := &Workload{preset: "manual", minBatch: 1, maxBatch: 1}
	if err := w.Validate(); err != nil || w.v != presets["manual"] {
		t.Errorf("Validate without a flag set = %v, variant %+v", err, w.v)
	}
}

func TestPresetNames(t *testing.T) {
	if got := presetNames(); got != "jsonb, manual, text" {
		t.Errorf("presetNames() = %q", got)
	}
	for n, v := range presets {
		if v.name() != n {
			t.Errorf("preset %s is named %s", n, v.name())
		}
		if err := v.validate(); err != nil {
			t.Errorf("preset %s invalid: %v", n, err)
		}
	}
}

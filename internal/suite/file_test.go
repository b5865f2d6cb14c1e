package suite

import (
	"errors"
	"strings"
	"testing"
)

const goodTOML = `
name = "demo"
[defaults]
db = "temp-postgres"
duration = "10s"
pg-conf = ["a=b"]

[[scenario]]
name = "jsonb"
workload = "train-events"
tiers = ["smoke", "nightly"]
[scenario.flags]
variant = "jsonb"
clients = 8
inverted-index = false
pg-conf = ["c=d", "e=f"]

[[scenario]]
name = "ladder"
workload = "train-events"
tiers = ["capacity"]
repeat = 2
[scenario.flags]
settle = "1s"
rate = 2.5
[scenario.vary]
variant = ["text", "jsonb"]
clients = [4, 8, 16]
`

const goodYAML = `
name: demo
defaults:
  db: temp-postgres
  duration: 10s
  pg-conf: [a=b]
scenario:
  - name: jsonb
    workload: train-events
    tiers: [smoke, nightly]
    flags:
      variant: jsonb
      clients: 8
      inverted-index: false
      pg-conf: [c=d, e=f]
  - name: ladder
    workload: train-events
    tiers: [capacity]
    repeat: 2
    flags:
      settle: 1s
      rate: 2.5
    vary:
      variant: [text, jsonb]
      clients: [4, 8, 16]
`

// Both formats give the same scenarios: defaults merged key by key, a
// list replacing the default's, flags sorted, vary in file order.
func TestParseBothFormats(t *testing.T) {
	for _, c := range []struct{ path, text string }{{"demo.toml", goodTOML}, {"demo.yaml", goodYAML}, {"demo.yml", goodYAML}} {
		f, err := Parse(c.path, []byte(c.text), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if f.Name != "demo" || len(f.Entries) != 2 {
			t.Fatalf("%s: %+v", c.path, f)
		}
		run, study := f.Entries[0], f.Entries[1]
		if got, want := strings.Join(run.Args, " "), "--clients=8 --db=temp-postgres --duration=10s --inverted-index=false --pg-conf=c=d --pg-conf=e=f --variant=jsonb"; got != want {
			t.Errorf("%s: run args\n got %s\nwant %s", c.path, got, want)
		}
		if run.Kind() != KindRun || run.Repeat != 1 || strings.Join(run.Tiers, ",") != "smoke,nightly" {
			t.Errorf("%s: run %+v", c.path, run)
		}
		if got, want := strings.Join(study.Args, " "), "--db=temp-postgres --duration=10s --pg-conf=a=b --rate=2.5 --settle=1s"; got != want {
			t.Errorf("%s: study args\n got %s\nwant %s", c.path, got, want)
		}
		if got, want := strings.Join(study.VaryArgs(), " "), "--vary=variant=text,jsonb --vary=clients=4,8,16"; got != want {
			t.Errorf("%s: vary %s, want %s (file order)", c.path, got, want)
		}
		if study.Kind() != KindStudy || study.Repeat != 2 {
			t.Errorf("%s: study %+v", c.path, study)
		}
		if got := strings.Join(f.Tiers(), ","); got != "smoke,nightly,capacity" {
			t.Errorf("%s: tiers %s", c.path, got)
		}
		if es, err := f.Tier("nightly"); err != nil || len(es) != 1 || es[0].Name != "jsonb" {
			t.Errorf("%s: tier nightly: %v %v", c.path, es, err)
		}
		if _, err := f.Tier("soak"); err == nil || !strings.Contains(err.Error(), `no scenario is in tier "soak": choose one of smoke, nightly, capacity`) {
			t.Errorf("%s: tier soak: %v", c.path, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	scen := func(extra string) string {
		return "name = \"s\"\n[[scenario]]\nname = \"a\"\nworkload = \"w\"\ntiers = [\"smoke\"]\n" + extra
	}
	cases := []struct {
		path, text, want string
	}{
		{"s.toml", "name = \n", "s.toml:1: expected value"},
		{"s.toml", "name = \"x\"\nbogus = 1\n", `s.toml: unknown key "bogus"`},
		{"s.toml", scen("colour = \"red\"\n"), `s.toml: unknown key "scenario.colour"`},
		{"s.toml", "[[scenario]]\nname=\"a\"\n", "s.toml: the suite has no name"},
		{"s.toml", "name = \"x y\"\n", `suite name "x y"`},
		{"s.toml", "name = \"x\"\n", "no scenarios"},
		{"s.toml", "name = \"s\"\n[[scenario]]\nworkload = \"w\"\ntiers = [\"smoke\"]\n", "s.toml: scenario 1: no name"},
		{"s.toml", "name = \"s\"\n[[scenario]]\nname = \"a\"\ntiers = [\"smoke\"]\n", `s.toml: scenario "a": no workload`},
		{"s.toml", "name = \"s\"\n[[scenario]]\nname = \"a\"\nworkload = \"w\"\n", `scenario "a": no tiers`},
		{"s.toml", scen("[[scenario]]\nname = \"a\"\nworkload = \"w\"\ntiers = [\"x\"]\n"), `scenario "a": the name is already used by scenario 1`},
		{"s.toml", scen("[scenario.flags]\njson = \"x.json\"\n"), "json cannot be set in a suite file"},
		{"s.toml", scen("[scenario.flags]\nout = \"d\"\n"), "out cannot be set in a suite file"},
		{"s.toml", scen("[scenario.flags]\nhtml = \"x.html\"\n"), "html cannot be set in a suite file"},
		{"s.toml", "name = \"s\"\n[defaults]\njson = \"x\"\n[[scenario]]\nname = \"a\"\n", "defaults: json cannot be set"},
		{"s.toml", scen("[scenario.flags]\n\"--clients\" = 3\n"), "write flags without dashes"},
		{"s.toml", scen("[scenario.flags]\nclients = {a = 1}\n"), "scenario.flags.clients: a table is not a value"},
		{"s.toml", scen("[scenario.flags]\nstart = 1979-05-27T07:32:00Z\n"), "durations as strings"},
		{"s.toml", scen("[scenario.flags]\nclients = 3\n[scenario.vary]\nclients = [1, 2]\n"), "clients is both in flags and vary"},
		{"s.toml", scen("[scenario.vary]\nclients = []\n"), "vary clients: no values"},
		{"s.toml", scen("[scenario.vary]\nvariant = [\"a,b\"]\n"), "may not be empty or hold a comma"},
		{"s.toml", scen("repeat = 3\n"), "repeat 3 without vary"},
		{"s.toml", scen("repeat = -1\n[scenario.vary]\nclients = [1]\n"), "repeat -1"},
		{"s.toml", "name = \"s\"\n[[scenario]]\nname = \"suite\"\nworkload = \"w\"\ntiers = [\"smoke\"]\n", `name "suite"`},
		{"s.toml", "name = \"s\"\n[[scenario]]\nname = \"a/b\"\nworkload = \"w\"\ntiers = [\"smoke\"]\n", `name "a/b"`},
		{"s.toml", "name = \"s\"\n[[scenario]]\nname = \"a\"\nworkload = \"w\"\ntiers = [\"no good\"]\n", `tier "no good"`},
		{"s.json", "{}", `unknown suite file type ".json"`},
		{"s.yaml", "name: s\nscenario:\n  - name: a\n    colour: red\n", `s.yaml:4: unknown key "colour"`},
		{"s.yaml", "name: [s\n", "s.yaml:"},
		{"s.yaml", "name: s\nscenario:\n  - name: a\n    workload: w\n    tiers: smoke\n", "s.yaml:5:"},
		{"s.yaml", "", "s.yaml: the suite has no name"},
		{"s.yaml", "name: s\nscenario:\n  - name: a\n    workload: w\n    tiers: [smoke]\n    flags:\n      clients:\n", "flag clients: no value"},
	}
	for _, c := range cases {
		_, err := Parse(c.path, []byte(c.text), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s, %q) = %v\nwant an error containing %q", c.path, c.text, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
		if !strings.HasPrefix(err.Error(), c.path) {
			t.Errorf("error does not name the file: %q", err)
		}
	}
}

// The check sees every scenario resolved, and its error names the file
// and the scenario.
func TestParseRunsCheck(t *testing.T) {
	var seen []string
	check := func(e Entry) error {
		seen = append(seen, e.Name)
		if e.Name == "ladder" {
			return errors.New("unknown flag: --bogus")
		}
		return nil
	}
	_, err := Parse("demo.toml", []byte(goodTOML), check)
	if err == nil || err.Error() != `demo.toml: scenario "ladder": unknown flag: --bogus` {
		t.Errorf("err = %v", err)
	}
	if strings.Join(seen, ",") != "jsonb,ladder" {
		t.Errorf("checked %v", seen)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(false, goodTOML)
	f.Add(true, goodYAML)
	f.Add(false, "name = \"s\"\n[[scenario]]\nname = \"a\"\nworkload = \"w\"\ntiers = [\"smoke\"]\n[scenario.vary]\nx = [1]\n")
	f.Add(true, "name: s\nscenario: [{name: a, workload: w, tiers: [t], vary: {clients: [1, 2]}}]\n")
	f.Fuzz(func(t *testing.T, isYAML bool, text string) {
		path := "s.toml"
		if isYAML {
			path = "s.yaml"
		}
		sf, err := Parse(path, []byte(text), nil)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		// A suite that parsed is usable: names and tiers are safe, every
		// scenario has a workload, a tier and well-formed flags.
		if !safeName.MatchString(sf.Name) {
			t.Errorf("suite name %q", sf.Name)
		}
		names := map[string]bool{}
		for _, e := range sf.Entries {
			if !safeName.MatchString(e.Name) || names[e.Name] || e.Workload == "" || len(e.Tiers) == 0 || e.Repeat < 1 {
				t.Errorf("bad entry %+v", e)
			}
			names[e.Name] = true
			for _, a := range e.Args {
				if !strings.HasPrefix(a, "--") || !strings.Contains(a, "=") {
					t.Errorf("arg %q", a)
				}
			}
			for _, tier := range e.Tiers {
				if got, err := sf.Tier(tier); err != nil || len(got) == 0 {
					t.Errorf("tier %q: %v", tier, err)
				}
			}
		}
	})
}

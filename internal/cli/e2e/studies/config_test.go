package studies

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
)

// TestConfigFile: --config FILE (TOML) sets any flag of run and study;
// a TXNBENCH_NAME variable wins over the file and a flag over both; the
// result records the file and what it and the environment set. A bad
// file, key or value is one line naming the fix, exit 2, nothing written.
// Before --config existed every case failed with "unknown flag".
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "bench.toml")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(conf, "# a run\nclients = 3\niterations = 4\nrows = 100\ntelemetry = \"off\"\n")
	runs := []struct {
		env     []string
		flags   []string
		clients int
	}{
		{nil, nil, 3},
		{[]string{"TXNBENCH_CLIENTS=2"}, nil, 2},
		{[]string{"TXNBENCH_CLIENTS=2"}, []string{"--clients", "1"}, 1},
		{[]string{"TXNBENCH_CONFIG=" + conf}, nil, 3},
	}
	for i, c := range runs {
		js := filepath.Join(dir, "r.json")
		os.Remove(js)
		args := []string{"run", "train-events", "--json", js}
		if !slices.Contains(c.env, "TXNBENCH_CONFIG="+conf) {
			args = append(args, "--config", conf)
		}
		code, out := clitest.RunWithEnv(t, c.env, append(args, c.flags...)...)
		if code != exitcode.OK {
			t.Fatalf("run %d: exit %d:\n%s", i, code, out)
		}
		r := clitest.LoadResult(t, js)
		if r.Config.Clients != c.clients || r.Config.Iterations != 4 {
			t.Errorf("run %d (env %v, flags %v): clients %d iterations %d; want %d and 4 (from the file)", i, c.env, c.flags, r.Config.Clients, r.Config.Iterations, c.clients)
		}
		if args := strings.Join(r.Config.Args, " "); !strings.Contains(args, conf) || !strings.Contains(args, "--iterations=4") {
			t.Errorf("run %d: the recorded command line %q does not say the file and what it set", i, args)
		}
	}

	t.Run("study", func(t *testing.T) {
		out := filepath.Join(dir, "study")
		code, text := clitest.RunWithEnv(t, nil, "study", "train-events", "--config", conf, "--vary", "clients=1,2", "--settle", "0s", "--out", out)
		if code != exitcode.OK {
			t.Fatalf("exit %d:\n%s", code, text)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.json"))
		runs := 0
		for _, f := range files {
			if filepath.Base(f) == "study.json" {
				continue
			}
			r := clitest.LoadResult(t, f)
			runs++
			if r.Config.Iterations != 4 {
				t.Errorf("%s: iterations %d; want 4 from the file", f, r.Config.Iterations)
			}
		}
		if runs != 2 {
			t.Errorf("%d runs saved; want 2", runs)
		}
	})

	bad := filepath.Join(dir, "bad.toml")
	cases := []struct {
		text string
		env  []string
		cmd  []string
		want string
	}{
		{"clientz = 3\n", nil, []string{"run", "train-events"}, `"clientz" is no flag of txnbench run train-events`},
		{"clientz = 3\n", nil, []string{"study", "train-events", "--vary", "clients=1,2"}, `"clientz" is no flag of txnbench study train-events`},
		{"clients = \n", nil, []string{"run", "train-events"}, "fix the TOML"},
		{"clients = \"many\"\n", nil, []string{"run", "train-events"}, "invalid argument"},
		{"[run]\nclients = 3\n", nil, []string{"run", "train-events"}, `"run" is no flag`},
		{"clients = 3\n", []string{"TXNBENCH_CLIENTS=many"}, []string{"run", "train-events"}, "TXNBENCH_CLIENTS"},
	}
	for _, c := range cases {
		write(bad, c.text)
		js := filepath.Join(dir, "bad.json")
		code, out := clitest.RunWithEnv(t, c.env, append(c.cmd, "--config", bad, "--json", js)...)
		if code != exitcode.Usage || !strings.Contains(out, c.want) || strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Errorf("%q %v: exit %d output %q; want exit %d, one line saying %q", c.text, c.env, code, out, exitcode.Usage, c.want)
		}
		if _, err := os.Stat(js); err == nil {
			t.Errorf("%q: a refused run wrote %s", c.text, js)
		}
	}
	if code, out := clitest.RunWithEnv(t, nil, "run", "train-events", "--config", filepath.Join(dir, "missing.toml")); code != exitcode.Usage || !strings.Contains(out, "give a readable TOML file") {
		t.Errorf("a missing file: exit %d output %q", code, out)
	}
	// A password in the file is masked like one on the command line.
	write(bad, "db = \"postgres://bob:filepw99@127.0.0.1:1/db\"\n")
	if code, out := clitest.RunWithEnv(t, nil, "run", "train-events", "--config", bad); code != exitcode.Failure || strings.Contains(out, "filepw99") || !strings.Contains(out, "bob:xxxxx@") {
		t.Errorf("a file's unreachable --db: exit %d output %q; want exit %d, the password masked", code, out, exitcode.Failure)
	}
}

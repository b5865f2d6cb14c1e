package inputs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// inputEdges are the bad inputs an adversarial pass still found accepted
// (issue 24): files that are no result (a device, a huge file), run ids
// that would garble a terminal, one result merged with itself, two
// outputs into one file, faults on a server that is away, --via pgbouncer
// without a server, an output that is an input. TestBadInputIsRefused runs
// them; each was accepted (or exited 1) before.
func inputEdges(t *testing.T) []badInput {
	valid := resultJSON(t, func(map[string]any) {})
	a := map[string]string{"a.json": valid}
	link := func(old, new string, symbolic bool) func(string) error {
		return func(dir string) error {
			if symbolic {
				return os.Symlink(old, filepath.Join(dir, new))
			}
			return os.Link(filepath.Join(dir, old), filepath.Join(dir, new))
		}
	}
	shard := func(id string) []string {
		return clitest.TrainEvents("--db", "postgres://u:hunter22@127.0.0.1:1/db", "--shard", "0/2", "--run-id", id)
	}
	fifo := func(name string) func(string) error {
		return func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, name), 0o644) }
	}
	script := func(args ...string) []string {
		return append([]string{"run", "script", "--db", "sqlite:{dir}/x.db", "--iterations", "1"}, args...)
	}
	long := strings.Repeat("r", 5000)
	study := map[string]string{"cell.json": valid, "study.json": `{"format":"txnbench-study/1","cells":[{"label":"c","results":["cell.json"]}]}`}
	fault := func(faults ...string) []string {
		args := clitest.TrainEvents("--db", "temp-postgres", "--duration", "10s")
		for _, f := range faults {
			args = append(args, "--fault", f)
		}
		return args
	}
	return []badInput{
		// files that are no result: read until memory ran out
		{args: []string{"report", "/dev/zero"}, want: "/dev/zero is not a regular file (a device or a pipe): give a result, study or suite file"},
		{args: []string{"report", "{dir}/a.json", "/dev/zero"}, want: "/dev/zero is not a regular file", files: a},
		{args: []string{"diff", "/dev/zero", "{dir}/a.json"}, want: "BASE: /dev/zero is not a regular file", files: a},
		{args: []string{"diff", "{dir}/a.json", "/dev/zero"}, want: "NEW: /dev/zero is not a regular file", files: a},
		{args: []string{"suite", "run", "/dev/zero", "--tier", "t"}, want: "/dev/zero is not a regular file"},
		{args: []string{"report", "{dir}/pipe.json"}, want: "{dir}/pipe.json is not a regular file",
			setup: func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644) }},
		{args: []string{"diff", "{dir}/a.json", "{dir}/pipe.json"}, want: "NEW: {dir}/pipe.json is not a regular file", files: a,
			setup: func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644) }},
		{args: []string{"report", "{dir}/huge.json"}, want: "{dir}/huge.json is 1073741825 bytes, more than the 1 GiB txnbench reads",
			setup: func(dir string) error { return sparse(filepath.Join(dir, "huge.json"), result.MaxFileSize+1) }},
		{args: []string{"diff", "{dir}/huge.json", "{dir}/huge.json"}, want: "BASE: {dir}/huge.json is 1073741825 bytes",
			setup: func(dir string) error { return sparse(filepath.Join(dir, "huge.json"), result.MaxFileSize+1) }},
		// files a run reads (issue 37): /dev/zero read without limit
		// (--config: 2.2 GB in 7 s), a named pipe waited for a writer
		// forever, a dotted key of --config was ignored
		{args: clitest.TrainEvents("--db", "sqlite:{dir}/x.db", "--config", "/dev/zero"), want: "--config: /dev/zero is not a regular file (a device or a pipe): give a TOML file of flag settings"},
		{args: clitest.TrainEvents("--db", "sqlite:{dir}/x.db", "--config", "{dir}/pipe.toml"), want: "--config: {dir}/pipe.toml is not a regular file", setup: fifo("pipe.toml")},
		{args: clitest.TrainEvents("--db", "sqlite:{dir}/x.db", "--config", "{dir}/big.toml"), want: "--config: {dir}/big.toml is 1048577 bytes, more than the 1 MiB txnbench reads: give a TOML file",
			setup: func(dir string) error { return sparse(filepath.Join(dir, "big.toml"), 1<<20+1) }},
		{args: clitest.TrainEvents("--db", "sqlite:{dir}/x.db", "--config", "{dir}/c.toml"), want: `--config {dir}/c.toml: "clients.max" is a dotted key (a TOML table), not a flag: write each flag on a line of its own`,
			files: map[string]string{"c.toml": "iterations = 1\nclients.max = 3\n"}},
		{args: script("-f", "{dir}/zero.sql"), want: "{dir}/zero.sql is not a regular file (a device or a pipe): give a script file", setup: link("/dev/zero", "zero.sql", true)},
		{args: script("-f", "{dir}/pipe.sql"), want: "{dir}/pipe.sql is not a regular file", setup: fifo("pipe.sql")},
		{args: script("-f", "{dir}/big.sql"), want: "{dir}/big.sql is 1048577 bytes, more than the 1 MiB txnbench reads: give a script file",
			setup: func(dir string) error { return sparse(filepath.Join(dir, "big.sql"), 1<<20+1) }},
		{args: script("-b", "tpcb-like", "--check", "{dir}/pipe.sql"), want: "--check: {dir}/pipe.sql is not a regular file", setup: fifo("pipe.sql")},
		{args: script("-b", "tpcb-like", "--setup", "{dir}/pipe.sql"), want: "--setup: {dir}/pipe.sql is not a regular file", setup: fifo("pipe.sql")},
		{args: []string{"pgbench", "--db", "sqlite:{dir}/x.db", "-t", "1", "-f", "{dir}/zero.sql"}, want: "{dir}/zero.sql is not a regular file", code: exitcode.Failure, setup: link("/dev/zero", "zero.sql", true)},
		{args: []string{"suite", "run", "{dir}/pipe.toml", "--tier", "t"}, want: "{dir}/pipe.toml is not a regular file", setup: fifo("pipe.toml")},
		// run ids
		{args: shard("a\nb"), want: `--run-id "a\nb" holds a control character (a newline or an escape, say): give printable characters only`},
		{args: shard("x\x1b[31mred"), want: `--run-id "x\x1b[31mred" holds a control character`},
		{args: shard("a\x9bb"), want: "holds a control character"},
		{args: shard(long), want: `--run-id "` + long[:32] + `"... is 5000 bytes long: give at most 128`},
		{args: []string{"check", "a\x1b]0;title\x07", "--db", "postgres://u:hunter22@127.0.0.1:1/db"}, want: `RUN_ID "a\x1b]0;title\a" holds a control character`},
		{args: []string{"check", long, "--db", "postgres://u:hunter22@127.0.0.1:1/db"}, want: `RUN_ID "` + long[:32] + `"... is 5000 bytes long`},
		// one part of a run merged with itself
		{args: []string{"report", "{dir}/a.json", "{dir}/a.json"}, want: "cannot merge: {dir}/a.json and {dir}/a.json are the same part of a run", files: a},
		{args: []string{"report", "{dir}/a.json", "{dir}/./a.json"}, want: "are the same part of a run", files: a},
		{args: []string{"report", "{dir}/a.json", "{dir}/hard.json"}, want: "cannot merge: {dir}/a.json and {dir}/hard.json are the same part", files: a, setup: link("a.json", "hard.json", false)},
		{args: []string{"report", "{dir}/a.json", "{dir}/soft.json"}, want: "are the same part of a run", files: a, setup: link("a.json", "soft.json", true)},
		{args: []string{"report", "{dir}/a.json", "{dir}/copy.json"}, want: "cannot merge: {dir}/a.json and {dir}/copy.json are the same part of a run (same start, machine and seed), which would count it twice: give each part once", files: map[string]string{"a.json": valid, "copy.json": valid}},
		// two outputs into one file
		{args: clitest.TrainEvents("--json", "{dir}/x", "--html", "{dir}/x"), want: "--json {dir}/x and --html {dir}/x name the same file, which the second would replace: give each output its own file"},
		{args: clitest.TrainEvents("--html", "{dir}/x", "--cpu-profile", "{dir}/sub/../x"), want: "--html {dir}/x and --cpu-profile {dir}/sub/../x name the same file", setup: func(dir string) error { return os.Mkdir(filepath.Join(dir, "sub"), 0o755) }},
		{args: clitest.TrainEvents("--json", "{dir}/x", "--cpu-profile", "{dir}/here/x"), want: "name the same file", setup: link(".", "here", true)},
		{args: clitest.TrainEvents("--json", "{dir}/a.json", "--html", "{dir}/hard.json"), want: "name the same file", files: a, setup: link("a.json", "hard.json", false)},
		{args: []string{"report", "{dir}/a.json", "--json", "{dir}/m", "--html", "{dir}/m"}, want: "--html {dir}/m and --json {dir}/m name the same file", files: a},
		// an output that is one of the inputs, by any path (issue 37):
		// the saved result was replaced by its own CSV or page
		{args: []string{"report", "{dir}/a.json", "--csv", "{dir}/a.json"}, want: "--csv {dir}/a.json would replace {dir}/a.json, which this command reads: give the output a file of its own", files: a},
		{args: []string{"report", "{dir}/a.json", "--html", "{dir}/soft.json"}, want: "--html {dir}/soft.json would replace {dir}/a.json", files: a, setup: link("a.json", "soft.json", true)},
		{args: []string{"report", "{dir}/a.json", "--json", "{dir}/hard.json"}, want: "--json {dir}/hard.json would replace {dir}/a.json", files: a, setup: link("a.json", "hard.json", false)},
		{args: []string{"report", "{dir}/a.json", "--csv", "{dir}/sub/../a.json"}, want: "would replace {dir}/a.json", files: a, setup: func(dir string) error { return os.Mkdir(filepath.Join(dir, "sub"), 0o755) }},
		{args: []string{"report", "{dir}/study.json", "--csv", "{dir}/cell.json"}, want: "--csv {dir}/cell.json would replace {dir}/cell.json", files: study},
		{args: []string{"diff", "{dir}/a.json", "{dir}/b.json", "--json", "{dir}/b.json"}, want: "--json {dir}/b.json would replace {dir}/b.json", files: map[string]string{"a.json": valid, "b.json": valid}},
		{args: []string{"diff", "{dir}/study.json", "{dir}/study.json", "--json", "{dir}/cell.json"}, want: "--json {dir}/cell.json would replace {dir}/cell.json", files: study},
		{args: []string{"run", "script", "-f", "{dir}/s.sql", "--json", "{dir}/s.sql"}, want: "--json {dir}/s.sql would replace {dir}/s.sql", files: map[string]string{"s.sql": "SELECT 1;\n"}},
		{args: []string{"run", "script", "-f", "{dir}/s.sql", "--check", "{dir}/c.sql", "--html", "{dir}/c.sql"}, want: "--html {dir}/c.sql would replace {dir}/c.sql", files: map[string]string{"s.sql": "SELECT 1;\n", "c.sql": "-- t\nSELECT true;\n"}},
		{args: clitest.TrainEvents("--config", "{dir}/c.toml", "--csv", "{dir}/c.toml"), want: "--csv {dir}/c.toml would replace {dir}/c.toml", files: map[string]string{"c.toml": "clients = 1\n"}},
		{args: []string{"study", "script", "-f", "{dir}/s.sql", "--vary", "clients=1,2", "--out", "{dir}"}, want: "--out {dir} holds {dir}/s.sql, which this command reads and could replace: give --out a directory of its own", files: map[string]string{"s.sql": "SELECT 1;\n"}},
		{args: []string{"study", "train-events", "--config", "{dir}/c.toml", "--vary", "clients=1,2", "--out", "{dir}/here"}, want: "--out {dir}/here holds {dir}/c.toml", files: map[string]string{"c.toml": "clients = 1\n"}, setup: link(".", "here", true)},
		{args: []string{"suite", "run", "{dir}/s.toml", "--tier", "t", "--out", "{dir}"}, want: "--out {dir} holds {dir}/s.toml", files: map[string]string{"s.toml": goodSuite}},
		{args: []string{"capacity", "script", "-f", "{dir}/s.sql", "--slo", "s.sql.p99<=1s", "--out", "{dir}"}, want: "--out {dir} holds {dir}/s.sql", files: map[string]string{"s.sql": "SELECT 1;\n"}},
		// terminate-backends while the server is away, or at its instant
		{args: fault("3s:kill-server:4s", "5s:terminate-backends"), want: "--fault 5s:terminate-backends starts while --fault 3s:kill-server:4s is going on (until 7s): one fault at a time on the same thing"},
		{args: fault("3s:hang-server:2s", "4s:terminate-backends"), want: "--fault 4s:terminate-backends starts while --fault 3s:hang-server:2s is going on"},
		{args: fault("3s:terminate-backends", "3s:restart-server"), want: "starts while --fault 3s:terminate-backends is going on"},
		{args: fault("3s:kill-server", "3s:terminate-backends"), want: "starts while --fault 3s:kill-server is going on"},
		// a pooler in front of an embedded database
		{args: clitest.TrainEvents("--via", "pgbouncer", "--poolers", "2"), want: "--via pgbouncer needs a PostgreSQL server: use --db temp-postgres or a postgres:// URL"},
		{args: clitest.TrainEvents("--via", "pgbouncer"), want: "--via pgbouncer needs a PostgreSQL server"},
		{args: clitest.TrainEvents("--db", "sqlite:{dir}/x.db", "--via", "pgbouncer"), want: "--via pgbouncer needs a PostgreSQL server"},
	}
}

// sparse makes a file of size bytes that takes no room on disk.
func sparse(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestMetricsAddrSaysWhereItListens: --metrics-addr :0 listens on every
// interface; the status line says so ([::] or 0.0.0.0, and "every
// interface"), not localhost, which it is not only on. A host given is
// shown as given. Failed before: "metrics on http://localhost:PORT".
func TestMetricsAddrSaysWhereItListens(t *testing.T) {
	for addr, want := range map[string]string{
		":0":          `metrics on http://(\[::\]|0\.0\.0\.0):[1-9][0-9]*/metrics \(every interface; updated every --progress interval\)`,
		"0.0.0.0:0":   `metrics on http://0\.0\.0\.0:[1-9][0-9]*/metrics \(every interface;`,
		"localhost:0": `metrics on http://localhost:[1-9][0-9]*/metrics \(updated every`,
	} {
		cmd, _, stderr := clitest.Start(t, append(clitest.TrainEvents("--duration", "500ms", "--metrics-addr", addr, "--telemetry", "off"), clitest.Quick...)...)
		clitest.WaitExit(t, cmd, time.Minute, stderr)
		if code := cmd.ProcessState.ExitCode(); code != exitcode.OK {
			t.Fatalf("--metrics-addr %s: exit %d\n%s", addr, code, stderr.String())
		}
		if !regexp.MustCompile(want).MatchString(stderr.String()) {
			t.Errorf("--metrics-addr %s: stderr does not match %s:\n%s", addr, want, stderr.String())
		}
	}
}

// TestTwoInterruptsDuringStartup: Ctrl-C twice while the throwaway
// cluster is being set up (initdb running) exits 130 at once and leaves
// nothing in TMPDIR: the second interrupt kills initdb and removes the
// cluster's directory before exiting. Failed before: the second interrupt
// exited with only running servers stopped, and initdb's directory (38 MB
// once done) was left behind.
func TestTwoInterruptsDuringStartup(t *testing.T) {
	testutil.NeedPostgres(t)
	// The directory must be one the unprivileged user that runs initdb
	// can enter.
	tmp := clitest.EnterableTempDir(t, "txnbench-interrupt-test-")
	cmd, _, stderr := clitest.StartWithEnv(t, []string{"TMPDIR=" + tmp}, clitest.TrainEvents("--db", "temp-postgres", "--duration", "10s")...)
	// initdb is writing the data directory.
	var data string
	if !testutil.Poll(60*time.Second, time.Millisecond, func() bool {
		m, _ := filepath.Glob(filepath.Join(tmp, "txnbench-pg-*", "data", "base"))
		if len(m) > 0 {
			data = filepath.Dir(m[0])
		}
		return data != ""
	}) {
		t.Fatalf("no data directory appeared in %s:\n%s", tmp, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(time.Millisecond) // two presses, not one signal coalesced
	cmd.Process.Signal(syscall.SIGINT)
	clitest.WaitExit(t, cmd, time.Minute, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Errorf("exit %d, want %d\n%s", code, exitcode.Interrupted, stderr.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR after two interrupts: %v\n%s", names(left), stderr.String())
	}
	if ps, _ := exec.Command("pgrep", "-f", data).Output(); len(ps) > 0 {
		t.Errorf("processes on %s left running: %s", data, ps)
	}
}

package outputs

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// csvCounts sums the count column of an intervals CSV per op, checking
// its header.
func csvCounts(t *testing.T, b []byte) map[string]int64 {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("CSV: %v, %d rows:\n%s", err, len(rows), b)
	}
	if got := strings.Join(rows[0], ","); got != "time_s,op,kind,count,rate,mean_ms,p50_ms,p90_ms,p95_ms,p99_ms,max_ms,errors,retries" {
		t.Fatalf("CSV header %q", got)
	}
	sums := map[string]int64{}
	for _, r := range rows[1:] {
		n, err := strconv.ParseInt(r[3], 10, 64)
		if err != nil {
			t.Fatalf("count %q: %v", r[3], err)
		}
		sums[r[1]] += n
	}
	return sums
}

// jsonlCounts sums the ops' counts of a --jsonl file per op and returns
// the number of lines.
func jsonlCounts(t *testing.T, b []byte) (map[string]int64, int) {
	t.Helper()
	sums, lines := map[string]int64{}, 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var iv struct {
			TimeS float64 `json:"time_s"`
			Ops   []struct {
				Op    string `json:"op"`
				Count int64  `json:"count"`
			} `json:"ops"`
		}
		if err := json.Unmarshal(sc.Bytes(), &iv); err != nil {
			t.Fatalf("line %d: %v: %s", lines+1, err, sc.Bytes())
		}
		for _, o := range iv.Ops {
			sums[o.Op] += o.Count
		}
		lines++
	}
	return sums, lines
}

// TestRunCSVAndJSONL runs train-events on SQLite with --csv, --jsonl and
// --json: the CSV's and the JSON lines' per-op count sums equal the
// saved result's intervals' and the op's count, and report --csv of the
// saved result writes the same CSV.
func TestRunCSVAndJSONL(t *testing.T) {
	dir := t.TempDir()
	js, cs, jl := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.jsonl")
	args := append([]string{"run", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--iterations", "40", "--clients", "2",
		"--progress", "20ms", "--json", js, "--csv", cs, "--jsonl", jl}, clitest.Quick...)
	clitest.MustRun(t, args...)
	r := clitest.LoadResult(t, js)
	want := map[string]int64{}
	for _, iv := range r.Intervals {
		for _, o := range iv.Ops {
			want[o.Name] += o.Count
		}
	}
	if want["cycle"] != r.Op("cycle").Count || want["cycle"] != 40 {
		t.Fatalf("the saved intervals count %d cycles, the result %d", want["cycle"], r.Op("cycle").Count)
	}
	b, _ := os.ReadFile(cs)
	got := csvCounts(t, b)
	jgot, lines := jsonlCounts(t, clitest.Read(t, jl))
	if len(got) != len(want) || len(jgot) != len(want) || lines != len(r.Intervals) {
		t.Errorf("ops: CSV %v, JSON lines %v (%d lines), JSON %v (%d intervals)", got, jgot, lines, want, len(r.Intervals))
	}
	for op, n := range want {
		if got[op] != n || jgot[op] != n {
			t.Errorf("%s: CSV counts %d, JSON lines %d, JSON intervals %d", op, got[op], jgot[op], n)
		}
	}
	again := filepath.Join(dir, "again.csv")
	clitest.MustRun(t, "report", js, "--csv", again)
	if a := clitest.Read(t, again); !bytes.Equal(a, b) {
		t.Errorf("report --csv differs from run --csv:\n%s\n---\n%s", a, b)
	}
}

// TestJSONLWhileRunning tails --jsonl of a running binary: lines are in
// the file before the run ends (it is stopped by SIGTERM after two).
func TestJSONLWhileRunning(t *testing.T) {
	dir := t.TempDir()
	jl := filepath.Join(dir, "r.jsonl")
	cmd, _, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--duration", "60s", "--clients", "1",
		"--progress", "100ms", "--jsonl", jl}, clitest.Quick...)...)
	lines := func() int {
		b, _ := os.ReadFile(jl)
		return bytes.Count(b, []byte("\n"))
	}
	if !testutil.Poll(60*time.Second, 20*time.Millisecond, func() bool { return lines() >= 2 }) {
		t.Fatalf("no two JSON lines while the run went:\n%s", stderr.String())
	}
	if cmd.ProcessState != nil {
		t.Fatal("the run had ended")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Errorf("exit %d, want %d:\n%s", code, exitcode.Interrupted, stderr.String())
	}
	if _, n := jsonlCounts(t, clitest.Read(t, jl)); n < 2 {
		t.Errorf("%d lines after the run", n)
	}
}

// TestStudyCSV: a study writes study.csv, one row per op per cell with
// the varied setting as a column, and report --csv of the study writes
// the same; a study refuses the per-run --csv and --jsonl; two outputs
// naming one file are refused before the run.
func TestStudyCSV(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "st")
	db := "sqlite:" + filepath.Join(dir, "s.db")
	args := append([]string{"study", "train-events", "--db", db, "--vary", "clients=1,2", "--iterations", "6", "--settle", "0s", "--out", out}, clitest.Quick...)
	clitest.MustRun(t, args...)
	b := clitest.Read(t, filepath.Join(out, "study.csv"))
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0][:4], ",") != "cell,clients,op,kind" {
		t.Errorf("header %v", rows[0])
	}
	cycles := map[string]string{}
	for _, r := range rows[1:] {
		if r[2] == "cycle" {
			cycles[r[1]] = r[4]
		}
	}
	if cycles["1"] != "6" || cycles["2"] != "6" {
		t.Errorf("cycle counts per clients %v, want 6 each:\n%s", cycles, b)
	}
	again := filepath.Join(dir, "again.csv")
	if code, _, stderr := clitest.Run("report", out, "--csv", again); code != exitcode.OK || !bytes.Equal(clitest.Read(t, again), b) {
		t.Errorf("report --csv of the study: exit %d %s\n%s\n---\n%s", code, stderr, clitest.Read(t, again), b)
	}
	for _, flag := range []string{"--csv", "--jsonl"} {
		code, _, stderr := clitest.Run(append(args[:len(args)-len(clitest.Quick)], flag, filepath.Join(dir, "x"))...)
		if code != exitcode.Usage || !strings.Contains(stderr, flag+" does not apply to a study") {
			t.Errorf("study %s: exit %d %s", flag, code, stderr)
		}
	}
	same := filepath.Join(dir, "same")
	code, _, stderr := clitest.Run("run", "train-events", "--db", db, "--iterations", "2", "--csv", same, "--jsonl", same)
	if code != exitcode.Usage || !strings.Contains(stderr, "--csv "+same+" and --jsonl "+same+" name the same file") {
		t.Errorf("--csv and --jsonl on one file: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(same); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote %s", same)
	}
}

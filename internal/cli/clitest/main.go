package clitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/redact"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// Main is an end-to-end test package's TestMain: with TXNBENCH_CLI_MAIN=1
// the test binary is txnbench (Start, RunBinary and RunWithEnv run it so),
// with TXNBENCH_IMPOSTOR_PORT another user's fake server on that port (see
// impostorMain); otherwise it runs the tests, four parallel ones at once
// unless -parallel says: they mostly wait (for servers to start, windows
// to pass, faults to recover), and stops the cluster they share
// (testutil.SharedPostgres).
func Main(m *testing.M) {
	if os.Getenv("TXNBENCH_CLI_MAIN") == "1" {
		os.Exit(cli.Process(os.Args[1:], os.Stdout, os.Stderr))
	}
	if port := os.Getenv("TXNBENCH_IMPOSTOR_PORT"); port != "" {
		os.Exit(impostorMain(port))
	}
	testutil.DefaultParallel(4)
	os.Exit(testutil.Main(m))
}

// Quick are train-events flags for short runs.
var Quick = []string{"--rows", "200", "--delay", "1ms", "--think-min", "0s", "--think-max", "1ms", "--max-batch", "20"}

// TrainEvents is "run train-events" with args.
func TrainEvents(args ...string) []string { return append([]string{"run", "train-events"}, args...) }

// Run runs the command in this process and returns its exit code and
// output.
func Run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// MustRun is Run that fails the test unless the command exits 0, naming
// the command and quoting what it printed.
func MustRun(t testing.TB, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := Run(args...)
	if code != exitcode.OK {
		t.Fatalf("txnbench %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", redact.URL(strings.Join(args, " ")), code, exitcode.OK, stdout, stderr)
	}
	return stdout, stderr
}

// Buffer is a buffer written by the command and read by the test
// meanwhile (plain's, shared with the packages' own tests).
type Buffer = plain.Buffer

// Command is the test binary as txnbench with args, in a child process
// (its environment this one's and TXNBENCH_CLI_MAIN=1).
func Command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1")
	return cmd
}

// Start runs the real command in a child process, killed at the end of
// the test if still running.
func Start(t testing.TB, args ...string) (cmd *exec.Cmd, stdout, stderr *Buffer) {
	t.Helper()
	return StartWithEnv(t, nil, args...)
}

// StartWithEnv is Start with env (KEY=VALUE) added to the child's
// environment.
func StartWithEnv(t testing.TB, env []string, args ...string) (cmd *exec.Cmd, stdout, stderr *Buffer) {
	t.Helper()
	cmd = Command(args...)
	cmd.Env = append(cmd.Env, env...)
	stdout, stderr = &Buffer{}, &Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, stdout, stderr
}

// RunBinary runs the real command in a child process and returns its
// exit code and output.
func RunBinary(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := Command(args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	code = Exited(t, cmd)
	return code, out.String(), errb.String()
}

// RunWithEnv runs the real command in a child process with env added to a
// copy of this process's environment cleared of libpq's and txnbench's
// variables, and returns its exit status and output.
func RunWithEnv(t testing.TB, env []string, args ...string) (code int, out string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "TXNBENCH_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "TXNBENCH_CLI_MAIN=1"), env...)
	var b Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	code = Exited(t, cmd)
	return code, b.String()
}

// Repo is the path of elem in the repository (the directory of go.mod
// above the test's working directory): examples, deploy files, scripts
// and other packages' testdata, wherever the test package lies.
func Repo(t testing.TB, elem ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(append([]string{dir}, elem...)...)
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// Read is the content of the file at path, failing the test if it cannot
// be read.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ReadStudy is the study.json of the study written into dir, failing
// the test if it cannot be read.
func ReadStudy(t testing.TB, dir string) *study.Summary {
	t.Helper()
	var s study.Summary
	ReadJSON(t, filepath.Join(dir, "study.json"), &s)
	return &s
}

// LoadResult is the result saved at path, failing the test if it cannot
// be loaded.
func LoadResult(t testing.TB, path string) *result.Result {
	t.Helper()
	r, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// SampleRun is the path of a saved result of a real run, train-events on
// SQLite (internal/diff's testdata), for tests that render or edit one.
func SampleRun(t testing.TB) string {
	t.Helper()
	return Repo(t, "internal", "diff", "testdata", "train-events-sqlite.json")
}

// FirstRuns is the result of each cell's first run of study s, in the
// cells' order, failing the test if one cannot be loaded.
func FirstRuns(t testing.TB, s *study.Summary) []*result.Result {
	t.Helper()
	var runs []*result.Result
	for _, c := range s.Cells {
		runs = append(runs, LoadResult(t, c.Results[0]))
	}
	return runs
}

// ReadJSON decodes the JSON file at path into v, failing the test if it
// cannot be read or decoded.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(Read(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Exited runs cmd to its end and returns its exit status; a command that
// could not run fails the test.
func Exited(t testing.TB, cmd *exec.Cmd) int {
	t.Helper()
	var ee *exec.ExitError
	if err := cmd.Run(); err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode()
}

package clitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// Entrypoint is the container's entry point (deploy/kubernetes), which
// RunShards runs as a Kubernetes Indexed Job's pods do, and ResultsSh,
// which collects their results from their logs; both relative to the
// repository (see Repo).
const (
	Entrypoint = "deploy/kubernetes/entrypoint.sh"
	ResultsSh  = "deploy/kubernetes/results.sh"
)

// RunShards runs n shards of one run as separate processes through the
// container's entry point, as the pods of an Indexed Job (JOB_COMPLETION_INDEX
// I, --shards N, the database URL in TXNBENCH_DB), waits for them, collects
// their results from their output with results.sh into dir/shard-I.json
// and returns them and the shards' stderr.
func RunShards(t testing.TB, n int, url, dir string, args ...string) ([]*result.Result, []string) {
	t.Helper()
	cmds := make([]*exec.Cmd, n)
	outs := make([]*Buffer, n)
	errs := make([]*Buffer, n)
	for i := range n {
		cmd := exec.Command("sh", append([]string{Repo(t, Entrypoint), "run"}, append(args, "--shards", strconv.Itoa(n))...)...)
		cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1", "TXNBENCH_BIN="+os.Args[0], "TXNBENCH_DB="+url,
			"JOB_COMPLETION_INDEX="+strconv.Itoa(i), "RESULTS="+t.TempDir())
		outs[i], errs[i] = &Buffer{}, &Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], errs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		cmds[i] = cmd
	}
	var logs strings.Builder
	stderr := make([]string, n)
	for i, cmd := range cmds {
		err := cmd.Wait()
		stderr[i] = errs[i].String()
		if err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, stderr[i])
		}
		logs.WriteString(outs[i].String() + stderr[i])
	}
	collect := exec.Command("sh", Repo(t, ResultsSh), dir)
	collect.Stdin = strings.NewReader(logs.String())
	if out, err := collect.CombinedOutput(); err != nil {
		t.Fatalf("results.sh: %v\n%s", err, out)
	}
	rs := make([]*result.Result, n)
	for i := range n {
		var err error
		if rs[i], err = result.Load(filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))); err != nil {
			t.Fatal(err)
		}
	}
	return rs, stderr
}

package faults

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// readFrom runs YCSB-B as two scripts (-b ycsb-read@95 -b ycsb-update@5)
// on a primary and one standby with --read-from replicas, one client
// over 20 records for a fixed 300 transactions, and returns its result.
func readFrom(t *testing.T, args ...string) (*result.Result, string) {
	t.Helper()
	// one file per subtest: with TXNBENCH_ARTIFACTS (CI) every test shares
	// one directory, and the two parallel subtests read each other's result
	out := filepath.Join(testutil.Artifacts(t), strings.ReplaceAll(t.Name(), "/", "-")+".json")
	all := append([]string{"run", "script", "-b", "ycsb-read@95", "-b", "ycsb-update@5", "--record-count", "20",
		"--db", "temp-postgres", "--replicas", "1", "--read-from", "replicas", "--clients", "1", "--iterations", "300",
		"--telemetry", "off", "--json", out}, args...)
	stdout, _ := clitest.MustRun(t, all...)
	r := clitest.LoadResult(t, out)
	rr := r.ReadRouting
	if rr == nil || rr.Stale == nil || rr.Reads < 200 || len(rr.Standbys) != 1 {
		t.Fatalf("read routing %+v:\n%s", rr, stdout)
	}
	// the standby's own counter: every read committed there (the
	// primary took them all before --read-from, and the standby's count
	// was then txnbench's few readings)
	if got := rr.Standbys[0].Commits; got < rr.Reads {
		t.Errorf("standby1 committed %d transactions, fewer than the %d reads sent to it:\n%s", got, rr.Reads, stdout)
	}
	if !strings.Contains(stdout, rr.StaleLine()+"\n") || !strings.Contains(stdout, rr.ServedLine()+"\n") {
		t.Errorf("footer without %q and %q:\n%s", rr.StaleLine(), rr.ServedLine(), stdout)
	}
	return r, stdout
}

// TestReadFromReplicasCountsStaleReads: with the standby's replay held
// back 300 ms (recovery_min_apply_delay, planted through --pg-conf, which
// the standbys inherit) the reads of the record the client just updated
// miss it and are counted stale; with sync-apply (a commit returns once
// the standby applied it) and no delay none is.
func TestReadFromReplicasCountsStaleReads(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	t.Run("delayed", func(t *testing.T) {
		t.Parallel()
		r, out := readFrom(t, "--pg-conf", "recovery_min_apply_delay=300ms")
		if rr := r.ReadRouting; *rr.Stale == 0 || rr.Own == 0 || *rr.Stale > rr.Own {
			t.Errorf("stale %d of %d own-write reads, want some, with replay 300 ms behind:\n%s", *rr.Stale, rr.Own, out)
		}
	})
	t.Run("sync-apply", func(t *testing.T) {
		t.Parallel()
		r, out := readFrom(t, "--replication", "sync-apply", "--telemetry", "on")
		if rr := r.ReadRouting; *rr.Stale != 0 || rr.Own == 0 {
			t.Errorf("stale %d of %d own-write reads, want none of some with sync-apply:\n%s", *rr.Stale, rr.Own, out)
		}
		// the primary's commits are the clients' less the reads: the
		// standbys' are counted beside them, not missing
		if c, ok := r.ServerCommits(); !ok || c.Standbys != r.ReadRouting.Commits() || !strings.Contains(out, " on the standbys for the clients' ") {
			t.Errorf("server commits %+v without the standbys':\n%s", c, out)
		}
	})
}

// TestStudyOfReadReplicas: a study over --vary replicas=0,1 with
// --read-from any runs both cells, the first on the primary alone (no
// routing: every member is the primary) and the second with its reads
// dealt over the primary and the standby, whose own counter shows the
// share it served.
func TestStudyOfReadReplicas(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	dir := t.TempDir()
	clitest.MustRun(t, "study", "script", "-b", "ycsb-read@95", "-b", "ycsb-update@5", "--record-count", "20",
		"--db", "temp-postgres", "--read-from", "any", "--vary", "replicas=0,1", "--clients", "2", "--iterations", "200",
		"--telemetry", "off", "--out", dir)
	for i, want := range []bool{false, true} {
		r := clitest.LoadResult(t, filepath.Join(dir, fmt.Sprintf("cell%02d-rep1.json", i+1)))
		rr := r.ReadRouting
		if got := rr != nil && len(rr.Standbys) == 1 && rr.Standbys[0].Commits > 0; got != want {
			t.Errorf("cell %d (replicas=%d): reads on a standby %v, want %v: %+v", i+1, i, got, want, rr)
		}
	}
}

package studies

import (
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestStudyCellsShareOneCluster: a study's direct and PgBouncer cells on
// temp-postgres run on one throwaway cluster (each study started a second
// one for its PgBouncer cells while the README said cells sharing --db
// share one); the PgBouncer runs only while its cells do, and the cluster
// is gone when the study ends. Each run also names what limited it, from
// the CPU of the parts txnbench started (PgBouncer's among them in its
// cells, the server's in all), and study.md and study.html print each
// cell's stored line.
func TestStudyCellsShareOneCluster(t *testing.T) {
	t.Parallel()
	testutil.NeedPgBouncer(t)
	out := filepath.Join(t.TempDir(), "st")
	args := append([]string{"study", "train-events", "--db", "temp-postgres", "--vary", "via=direct,pgbouncer",
		"--iterations", "20", "--clients", "2", "--settle", "0s", "--repeat", "2", "--out", out}, clitest.Quick...)
	_, stderr := clitest.MustRun(t, args...)
	clusters := regexp.MustCompile(clitest.ServerReady).FindAllStringSubmatch(stderr, -1)
	if len(clusters) != 1 {
		t.Fatalf("%d clusters started, want 1:\n%s", len(clusters), stderr)
	}
	if n := strings.Count(stderr, "in front of it"); n != 2 {
		t.Errorf("PgBouncer started %d times, want 2 (once for each round of its cells, A B A B):\n%s", n, stderr)
	}
	port := clusters[0][1]
	md := clitest.Read(t, filepath.Join(out, "study.md"))
	page := clitest.Read(t, filepath.Join(out, "study.html"))
	for i, f := range []string{"cell01-rep1.json", "cell01-rep2.json", "cell02-rep1.json", "cell02-rep2.json"} {
		r := clitest.LoadResult(t, filepath.Join(out, f))
		bouncer := r.CPU.Part("PgBouncer")
		if r.LimitedBy == nil || r.CPU.Part("server") == nil || (bouncer != nil) != (i >= 2) || (bouncer != nil && bouncer.Processes != 1) {
			t.Errorf("%s: limited by %+v, CPU %+v; want a limit, the server's CPU and PgBouncer's in its cells", f, r.LimitedBy, r.CPU)
		} else if line := r.LimitedBy.String(); !strings.Contains(string(md), line) || !strings.Contains(string(page), html.EscapeString(line)) {
			t.Errorf("%s: study.md or study.html lacks its limit %q:\n%s", f, line, md)
		}
		if !strings.Contains(r.Config.DB, ":"+port) || r.Op("cycle").Count != 20 || !r.Check().OK {
			t.Errorf("%s: db %s, %d cycles, check %+v; want the one cluster on port %s, 20 cycles, OK", f, r.Config.DB, r.Op("cycle").Count, r.Check(), port)
		}
	}
	clitest.CheckClusterGone(t, port)
}

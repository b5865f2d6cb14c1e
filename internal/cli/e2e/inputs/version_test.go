package inputs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
)

// TestBuiltBinaryNamesItsCommit builds txnbench as a user does (go build in
// this checkout) and expects `txnbench version` to name the commit, not dev.
func TestBuiltBinaryNamesItsCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: go build cannot stamp a commit")
	}
	dirs, err := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir").Output()
	if err != nil {
		t.Skip("not in a git checkout")
	}
	if d := strings.Fields(string(dirs)); len(d) == 2 && d[0] != d[1] {
		t.Skip("a linked git worktree: go build stamps no commit there")
	}
	bin := filepath.Join(t.TempDir(), "txnbench")
	// -buildvcs=true: what go build does by default in a checkout (a
	// machine may turn it off in GOFLAGS).
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, clitest.Repo(t, "cmd", "txnbench"))
	build.Env = os.Environ()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	rev, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	// Go stamps the module a pseudo-version ending in the commit:
	// v0.0.0-20261124045827-32b92a677dfc(+dirty).
	want := regexp.MustCompile(`^txnbench v\S+-` + strings.TrimSpace(string(rev)) + `(\+dirty)?$`)
	if got := strings.TrimSpace(string(out)); !want.MatchString(got) {
		t.Errorf("txnbench version printed %q, want the pseudo-version of commit %s", got, rev)
	}
}

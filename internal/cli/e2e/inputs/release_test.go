package inputs

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
)

// TestReleaseScript: scripts/release.sh builds a target's binary, which
// prints the version stamped into it, and a SHA256SUMS line that matches
// the file; a version that is no tag is refused with exit 2 before
// anything is built. It builds the host's target alone (linux/amd64 here),
// to keep it short. Before scripts/release.sh existed it failed.
func TestReleaseScript(t *testing.T) {
	target := runtime.GOOS + "/" + runtime.GOARCH
	switch target {
	case "linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64":
	default:
		t.Skipf("release.sh builds no binary for %s", target)
	}
	script := clitest.Repo(t, "scripts", "release.sh")
	dist := t.TempDir()
	run := func(args ...string) (int, string) {
		cmd := exec.Command("bash", append([]string{script}, args...)...)
		cmd.Env = append(os.Environ(), "DIST="+dist)
		var out clitest.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		code := clitest.Exited(t, cmd)
		return code, out.String()
	}
	for _, bad := range [][]string{{"1.2"}, {"v1.2.0", "windows/386"}, {}} {
		if code, out := run(bad...); code != exitcode.Usage || strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Errorf("release.sh %v: exit %d %q; want exit 2 and one line", bad, code, out)
		}
	}
	if entries, _ := os.ReadDir(dist); len(entries) != 0 {
		t.Fatalf("a refused release wrote %d files", len(entries))
	}

	const version = "v9.8.7-rc.1"
	if code, out := run(version, target); code != 0 {
		t.Fatalf("release.sh: exit %d:\n%s", code, out)
	}
	name := "txnbench-" + version + "-" + strings.ReplaceAll(target, "/", "-")
	out, err := exec.Command(filepath.Join(dist, name), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "txnbench "+version {
		t.Errorf("the binary says %q, want txnbench %s", got, version)
	}
	b := clitest.Read(t, filepath.Join(dist, name))
	sum := sha256.Sum256(b)
	sums := clitest.Read(t, filepath.Join(dist, "SHA256SUMS"))
	if want := hex.EncodeToString(sum[:]) + "  " + name + "\n"; string(sums) != want {
		t.Errorf("SHA256SUMS is %q, want %q", sums, want)
	}
}

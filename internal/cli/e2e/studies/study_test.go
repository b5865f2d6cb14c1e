package studies

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
)

// TestStudy runs a small study on SQLite: every cell twice, interleaved,
// one JSON per run, study.json and study.md, and the comparisons printed:
// along the varied setting (the default --compare axis) and the fixed
// work's wall times, the same again from study.json.
func TestStudy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "st")
	args := append([]string{"study", "train-events", "--db", "sqlite:" + filepath.Join(t.TempDir(), "s.db"),
		"--vary", "variant=manual,text", "--iterations", "6", "--clients", "2", "--settle", "0s", "--repeat", "2", "--out", out}, clitest.Quick...)
	code, stdout, stderr := clitest.Run(args...)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"## add", "variant=manual", "variant=text", "## variant: manual -> text", " manual -> text |", "## fixed work (--iterations)", " vs previous variant |", "invariants: OK in every run", "[4/4]"} {
		if !strings.Contains(stdout+stderr, want) {
			t.Errorf("output lacks %q (a column's header is padded to its widest value):\n%s\n%s", want, stdout, stderr)
		}
	}
	if strings.Contains(stdout, "vs first") {
		t.Errorf("--compare axis still compares with the first cell:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, "study.md"))
	js, _ := os.ReadFile(filepath.Join(out, "study.json"))
	if !bytes.Contains(js, []byte(`"comparisons"`)) || !bytes.Contains(js, []byte(`"axis": "variant"`)) || !bytes.Contains(js, []byte(`"fixed_work"`)) {
		t.Errorf("study.json lacks the comparisons:\n%s", js)
	}
	if code, again, stderr := clitest.Run("report", filepath.Join(out, "study.json")); code != exitcode.OK || again != string(md) {
		t.Errorf("report of study.json: exit %d %s, and it differs from study.md:\n%s", code, stderr, again)
	}
	files, _ := filepath.Glob(filepath.Join(out, "cell*-rep*.json"))
	if len(files) != 4 {
		t.Errorf("%d result files, want 4: %v", len(files), files)
	}
	for _, f := range []string{"study.json", "study.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	r, err := result.Load(filepath.Join(out, "cell02-rep2.json"))
	if err != nil || r.Settings["variant"] != "text" || r.Op("cycle").Count != 6 {
		t.Errorf("cell 2: %v %+v", err, r)
	}
}

package outputs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
)

// TestReportIntoClosedPipe: `report STUDY --html x | head` writes the
// HTML and exits 0 when stdout's reader has gone (it used to die of
// SIGPIPE before writing the file).
func TestReportIntoClosedPipe(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "st")
	args := append([]string{"study", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"),
		"--vary", "variant=manual,text", "--iterations", "4", "--clients", "1", "--settle", "0s", "--out", st}, clitest.Quick...)
	clitest.MustRun(t, args...)
	html := filepath.Join(dir, "x.html")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader has seen enough before the first line
	cmd := clitest.Command("report", st, "--html", html)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	w.Close()
	if code := cmd.ProcessState.ExitCode(); code != exitcode.OK {
		t.Errorf("exit %d (%v), want 0; stderr:\n%s", code, err, stderr.String())
	}
	if st, err := os.Stat(html); err != nil || st.Size() == 0 {
		t.Errorf("no HTML written: %v", err)
	}
}

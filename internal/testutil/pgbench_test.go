package testutil

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPgbenchSkipsTheWrapper: where NeedPgbench finds Debian's pg_wrapper,
// Pgbench is another file, a binary that says the same --version.
func TestPgbenchSkipsTheWrapper(t *testing.T) {
	wrapped, bin := NeedPgbench(t), Pgbench(t)
	want, err := exec.Command(wrapped, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(bin, "--version").Output()
	if err != nil || string(got) != string(want) {
		t.Errorf("%s --version = %q, %v; %s says %q", bin, got, err, wrapped, want)
	}
	if real, _ := filepath.EvalSymlinks(wrapped); filepath.Base(real) == "pg_wrapper" {
		if real, _ := filepath.EvalSymlinks(bin); filepath.Base(real) == "pg_wrapper" {
			t.Errorf("Pgbench = %s, still the wrapper", bin)
		}
	}
}

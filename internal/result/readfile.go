package result

import "github.com/txnbench/txnbench/internal/userfile"

// MaxFileSize is the largest file ReadFile reads: far above any saved
// result, study or suite (a day-long run with per-second intervals is a
// few hundred MB), low enough that a wrong path costs no machine's memory.
const MaxFileSize = 1 << 30

// ReadFile reads a file txnbench loads (a result, study.json, suite.json,
// a suite file) through userfile.Read: a regular file of at most
// MaxFileSize. Every loader of such files reads through it.
func ReadFile(path string) ([]byte, error) {
	return userfile.Read(path, MaxFileSize, "a result, study or suite file")
}

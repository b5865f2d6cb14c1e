package result

import (
	"fmt"
	"io"
	"os"
)

// MaxFileSize is the largest file ReadFile reads: far above any saved
// result, study or suite (a day-long run with per-second intervals is a
// few hundred MB), low enough that a wrong path costs no machine's memory.
const MaxFileSize = 1 << 30

// maxFileSizeText is MaxFileSize for messages.
const maxFileSizeText = "1 GiB"

// ReadFile reads a file txnbench loads (a result, study.json, suite.json,
// a suite file): it must be a regular file (a device such as /dev/zero or
// a pipe may never end) of at most MaxFileSize. Every loader of such
// files reads through it.
func ReadFile(path string) ([]byte, error) {
	// Look before opening: opening a named pipe waits for a writer.
	if st, err := os.Stat(path); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (a device or a pipe): give a file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory: give a file", path)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (a device or a pipe): give a file", path)
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s is %d bytes, more than the %s txnbench reads: give a result, study or suite file", path, st.Size(), maxFileSizeText)
	}
	// The file may grow while it is read: read one byte past the limit to
	// tell.
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%s grew past the %s txnbench reads while it was read: give a file that is not being written", path, maxFileSizeText)
	}
	return b, nil
}

package result

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes a file txnbench leaves behind (a result, a report)
// through write, atomically: a reader sees the old file or the whole new
// one, never a part, and an error leaves the old one. The file is 0644.
// Every writer of such files that may be read while it writes goes through
// it; callers wrap its error with what they were writing.
func WriteFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+strings.TrimPrefix(filepath.Base(path), ".")+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil { // CreateTemp makes it 0600
		return err
	}
	return os.Rename(tmp.Name(), path)
}

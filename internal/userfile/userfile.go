// Package userfile reads the files a user names on the command line or in
// a file of settings (a result, a suite, --config, a script, --setup,
// --check): each must be a regular file of bounded size, since a device
// such as /dev/zero never ends, a named pipe may never be written, and a
// wrong path must cost no machine's memory. Every such file is read
// through Read.
package userfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Read returns the content of path, which must be a regular file (a
// symbolic link to one is) of at most max bytes; what names the file a
// user should give instead ("a TOML file of flag settings"), for the
// message of a refusal. A refusal is one line naming path and the fix.
func Read(path string, max int64, what string) ([]byte, error) {
	// Look before opening: opening a named pipe waits for a writer.
	if st, err := os.Stat(path); err == nil {
		if err := regular(path, st, what); err != nil {
			return nil, err
		}
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
	if err := regular(path, st, what); err != nil { // replaced since it was looked at
		return nil, err
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %s txnbench reads: give %s", path, st.Size(), sizeText(max), what)
	}
	return readAtMost(f, path, max)
}

// ReadStream reads r (standard input, "-"), named name, to its end,
// refusing more than max bytes.
func ReadStream(r io.Reader, name string, max int64) ([]byte, error) {
	return readAtMost(r, name, max)
}

// readAtMost reads r to its end, or fails once it holds more than max
// bytes (a file that grows while it is read, a stream that never ends).
func readAtMost(r io.Reader, name string, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s holds more than the %s txnbench reads (it grew while it was read, or never ends): give a file of at most that", name, sizeText(max))
	}
	return b, nil
}

// regular refuses a directory, a device or a pipe.
func regular(path string, st os.FileInfo, what string) error {
	switch {
	case st.IsDir():
		return &refusal{msg: fmt.Sprintf("%s is a directory, not a regular file: give %s", path, what),
			err: &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}}
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (a device or a pipe): give %s", path, what)
	}
	return nil
}

// refusal is a directory Read refuses: its message is txnbench's, and
// it unwraps to the system's own word for it (read: is a directory), for
// a caller that speaks another tool's words (pgbench's).
type refusal struct {
	msg string
	err error
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.err }

// sizeText is n bytes for messages: 1 GiB, 1 MiB, 64 KiB or 100 bytes.
func sizeText(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

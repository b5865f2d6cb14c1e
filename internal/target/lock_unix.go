//go:build unix

package target

import (
	"errors"
	"os"
	"syscall"
)

// fileLock is an exclusive flock(2) on a file. SQLite locks its files
// with fcntl(2) byte ranges, which are independent of flock on the
// systems txnbench runs on, so the two never meet.
type fileLock struct{ f *os.File }

func openFileLock(path string) (*fileLock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &fileLock{f}, nil
}

func (l *fileLock) try() (bool, error) {
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// release unlocks and closes the file (closing alone would unlock).
func (l *fileLock) release() { l.f.Close() }

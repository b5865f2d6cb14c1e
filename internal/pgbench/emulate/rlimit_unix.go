//go:build unix

package emulate

import "syscall"

// openFilesLimit is the process's limit on open files, as getrlimit
// reports it (Go raises the soft limit to the hard one at start), and
// whether it could tell.
func openFilesLimit() (uint64, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, false
	}
	return uint64(l.Cur), true
}

//go:build !linux

package localdb

import "syscall"

// procAttr starts a child in a process group of its own, as cred when not
// nil. Without Linux's Pdeathsig a child outlives a killed txnbench until
// the next start's stale sweep (CleanStale) removes it.
func procAttr(_ syscall.Signal, cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred}
}

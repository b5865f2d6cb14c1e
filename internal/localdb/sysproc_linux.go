package localdb

import "syscall"

// procAttr starts a child in a process group of its own, as cred when not
// nil, sent death when txnbench's thread that started it exits (Linux's
// Pdeathsig).
func procAttr(death syscall.Signal, cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: death, Credential: cred}
}

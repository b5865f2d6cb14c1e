package localdb

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// runAs is the unprivileged user initdb, postgres and pgbouncer run as when
// txnbench runs as root.
type runAs struct {
	name     string
	uid, gid uint32
}

// credential returns the SysProcAttr credential for u (nil: run as ourselves).
func (u *runAs) credential() *syscall.Credential {
	if u == nil {
		return nil
	}
	// Groups is empty so the child drops root's supplementary groups.
	return &syscall.Credential{Uid: u.uid, Gid: u.gid, Groups: []uint32{}}
}

// chown gives path to u; a no-op when u is nil.
func (u *runAs) chown(path string) error {
	if u == nil {
		return nil
	}
	if err := os.Lchown(path, int(u.uid), int(u.gid)); err != nil {
		return fmt.Errorf("giving %s to user %s: %w", path, u.name, err)
	}
	return nil
}

// unprivilegedUser returns nil when txnbench is not root, otherwise the
// postgres user or, failing that, nobody. what names the programs that
// refuse to run as root, for the error ("initdb and postgres").
func unprivilegedUser(what string) (*runAs, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return &runAs{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("running as root, and %s refuse to: no postgres or nobody user to run them as: create one (useradd postgres) or run txnbench as a normal user", what)
}

// checkReachable reports whether u can reach path: every directory above it
// must be searchable by u. It is a no-op when u is nil.
func (u *runAs) checkReachable(path string) error {
	if u == nil {
		return nil
	}
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if !u.may(fi, 0o1) {
			return fmt.Errorf("user %s cannot enter %s", u.name, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// may reports whether u has permission bit perm (1 = x, 2 = w, 4 = r) on fi,
// by the classic owner/group/other rules.
func (u *runAs) may(fi os.FileInfo, perm os.FileMode) bool {
	mode := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	switch {
	case st.Uid == u.uid:
		return mode&(perm<<6) != 0
	case st.Gid == u.gid:
		return mode&(perm<<3) != 0
	default:
		return mode&perm != 0
	}
}

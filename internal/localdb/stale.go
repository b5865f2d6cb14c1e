package localdb

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/txnbench/txnbench/internal/tempdir"
)

const (
	// dirPrefix names every cluster directory under os.TempDir().
	dirPrefix = "txnbench-pg-"
	// bouncerDirPrefix names every PgBouncer directory under os.TempDir().
	bouncerDirPrefix = "txnbench-pgbouncer-"
	// haproxyDirPrefix names every HAProxy directory under os.TempDir().
	haproxyDirPrefix = "txnbench-haproxy-"
)

// CleanStale removes cluster, PgBouncer, HAProxy and MariaDB directories
// left in os.TempDir() by a txnbench that died without cleaning up (for
// instance after SIGKILL or out of memory): directories whose recorded
// owner process is no longer alive (tempdir.Sweep). A postgres, pgbouncer,
// haproxy or mariadbd still running in such a directory is killed first. It
// returns how many directories it removed. Start, StartPgBouncer,
// StartHAProxy and StartMariaDB call it first.
func CleanStale() int {
	return tempdir.Sweep(killLeftoverServer, dirPrefix, bouncerDirPrefix, haproxyDirPrefix, mariaDirPrefix)
}

// killLeftoverServer kills every process still running from dir, a dead
// txnbench's: those whose command line names a path in it, each with its
// process group and children. That is the server, pooler or proxy, and a
// start caught midway: initdb, or mariadb-install-db and its mariadbd
// --bootstrap, which have no pid file and outlived their txnbench, writing
// into the directory while it was removed. A command line naming dir is
// the dead run's own, as a pid in a pid file, perhaps reused, is not.
func killLeftoverServer(dir string) {
	for _, pid := range naming(dir+string(filepath.Separator), owners(dir)) {
		killLeftover(pid, dir)
	}
}

// owners are the users a dead run's processes in dir ran as: this
// process's, and the owners of dir and of what it holds (the service
// user's data directory). Another local user can name dir in a command
// line of its own, not write in it: its processes are never touched.
func owners(dir string) map[uint32]bool {
	uids := map[uint32]bool{uint32(os.Getuid()): true}
	add := func(path string) {
		if fi, err := os.Lstat(path); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				uids[st.Uid] = true
			}
		}
	}
	add(dir)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		add(filepath.Join(dir, e.Name()))
	}
	return uids
}

// naming lists the processes (but this one) of the users uids whose
// command line holds path.
func naming(path string, uids map[uint32]bool) []int {
	var pids []int
	for _, pid := range procs() {
		if pid == os.Getpid() {
			continue
		}
		proc := "/proc/" + strconv.Itoa(pid)
		fi, err := os.Stat(proc) // owned by the process's user
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || !uids[st.Uid] {
			continue
		}
		if cmdline, err := os.ReadFile(proc + "/cmdline"); err == nil && bytes.Contains(cmdline, []byte(path)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killLeftover SIGKILLs process pid, its process group and its children,
// checking first that its command line names path so a reused pid is never
// touched.
func killLeftover(pid int, path string) {
	if !tempdir.Alive(pid, 0) {
		return
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !bytes.Contains(cmdline, []byte(path)) {
		return
	}
	kids := childrenOf(pid)
	if st, ok := tempdir.Stat(pid); ok && st.PGrp == pid {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for _, k := range kids {
		if tempdir.Alive(k.pid, k.start) {
			_ = syscall.Kill(k.pid, syscall.SIGKILL)
		}
	}
	for deadline := time.Now().Add(2 * time.Second); tempdir.Alive(pid, 0) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
}

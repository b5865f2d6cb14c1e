package localdb

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// killLeftoverServer kills a postmaster still running in dir's data
// directory, or a pgbouncer or haproxy still running from dir's
// configuration.
func killLeftoverServer(dir string) {
	if pm, err := readPostmasterPid(filepath.Join(dir, "data")); err == nil {
		killLeftover(pm.pid, filepath.Join(dir, "data"))
	}
	if pid, err := readPidFile(filepath.Join(dir, bouncerPidName)); err == nil {
		killLeftover(pid, filepath.Join(dir, bouncerConfName))
	}
	if pid, err := readPidFile(filepath.Join(dir, haproxyPidName)); err == nil {
		killLeftover(pid, filepath.Join(dir, haproxyConfName))
	}
	if pid, err := readPidFile(filepath.Join(dir, mariaPidName)); err == nil {
		killLeftover(pid, filepath.Join(dir, "data"))
	}
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

// readPidFile reads a file whose first line is a pid.
func readPidFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("bad pid file %s", path)
	}
	return pid, nil
}

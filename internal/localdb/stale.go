package localdb

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// dirPrefix names every cluster directory under os.TempDir().
	dirPrefix = "txnbench-pg-"
	// bouncerDirPrefix names every PgBouncer directory under os.TempDir().
	bouncerDirPrefix = "txnbench-pgbouncer-"
	// haproxyDirPrefix names every HAProxy directory under os.TempDir().
	haproxyDirPrefix = "txnbench-haproxy-"
	// sqliteDirPrefix names every directory of a temporary SQLite file
	// under os.TempDir() (TempSQLiteDir).
	sqliteDirPrefix = "txnbench-sqlite-"
	// markerName is the file in a cluster or PgBouncer directory recording
	// the owning txnbench process: "PID STARTTIME\n" (STARTTIME from /proc,
	// may be 0).
	markerName = "txnbench.owner"
	// unmarkedGrace is how old a directory without a marker must be before
	// CleanStale treats it as abandoned (it may be being created right now).
	unmarkedGrace = 10 * time.Minute
)

// CleanStale removes cluster, PgBouncer, HAProxy, MariaDB and temporary SQLite directories
// left in os.TempDir() by a txnbench that died without cleaning up (for
// instance after SIGKILL or out of memory): directories whose recorded
// owner process is no longer alive. A postgres or pgbouncer still running in
// such a directory is killed first. It returns how many directories it
// removed. Start, StartPgBouncer and TempSQLiteDir call it first.
func CleanStale() int {
	var matches []string
	for _, prefix := range []string{dirPrefix, bouncerDirPrefix, haproxyDirPrefix, sqliteDirPrefix, mariaDirPrefix} {
		m, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
		matches = append(matches, m...)
	}
	n := 0
	for _, dir := range matches {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() {
			continue
		}
		pid, start, err := readMarker(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) || time.Since(fi.ModTime()) < unmarkedGrace {
				continue
			}
		} else if alive(pid, start) {
			continue
		}
		killLeftoverServer(dir)
		if os.RemoveAll(dir) == nil {
			n++
		}
	}
	return n
}

// TempSQLiteDir creates a directory for a temporary SQLite file under
// os.TempDir() (txnbench-sqlite-*, 0700), recording this process as its
// owner so that CleanStale removes it should txnbench die before removing
// it. It first removes stale directories (CleanStale).
func TempSQLiteDir() (string, error) {
	CleanStale()
	dir, err := os.MkdirTemp(os.TempDir(), sqliteDirPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("creating a temporary directory: %w: set TMPDIR to a writable directory", err)
	}
	if err := writeMarker(dir); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// writeMarker records this process as the owner of dir.
func writeMarker(dir string) error {
	pid := os.Getpid()
	content := fmt.Sprintf("%d %d\n", pid, procStartTime(pid))
	if err := os.WriteFile(filepath.Join(dir, markerName), []byte(content), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, markerName), err)
	}
	return nil
}

// readMarker returns the owner pid and its start time (0 if unknown).
func readMarker(dir string) (pid int, start uint64, err error) {
	b, err := os.ReadFile(filepath.Join(dir, markerName))
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, 0, fmt.Errorf("empty marker in %s", dir)
	}
	pid, err = strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return 0, 0, fmt.Errorf("bad marker in %s", dir)
	}
	if len(f) > 1 {
		start, _ = strconv.ParseUint(f[1], 10, 64)
	}
	return pid, start, nil
}

// alive reports whether process pid exists, is not a zombie and, when start
// is known, is the same process that was recorded (not a reused pid).
func alive(pid int, start uint64) bool {
	if pid <= 0 || pid > 1<<22 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, ok := procStat(pid)
	if !ok {
		return true // no /proc: trust kill(0)
	}
	if st.state == 'Z' || st.state == 'X' {
		return false
	}
	return start == 0 || st.start == start
}

type procStatInfo struct {
	state byte
	ppid  int
	pgrp  int
	start uint64
}

// procStat parses /proc/PID/stat.
func procStat(pid int) (procStatInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStatInfo{}, false
	}
	// The command name is in parentheses and may hold spaces or ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStatInfo{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); then ppid, pgrp, ...; field 22 is starttime.
	if len(f) < 20 {
		return procStatInfo{}, false
	}
	var st procStatInfo
	st.state = f[0][0]
	st.ppid, _ = strconv.Atoi(f[1])
	st.pgrp, _ = strconv.Atoi(f[2])
	st.start, _ = strconv.ParseUint(f[19], 10, 64)
	return st, true
}

func procStartTime(pid int) uint64 {
	st, _ := procStat(pid)
	return st.start
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
	if !alive(pid, 0) {
		return
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !bytes.Contains(cmdline, []byte(path)) {
		return
	}
	kids := childrenOf(pid)
	if st, ok := procStat(pid); ok && st.pgrp == pid {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for _, k := range kids {
		if alive(k.pid, k.start) {
			_ = syscall.Kill(k.pid, syscall.SIGKILL)
		}
	}
	for deadline := time.Now().Add(2 * time.Second); alive(pid, 0) && time.Now().Before(deadline); {
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

package tempdir

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
	// MarkerName is the file in a directory recording the owning txnbench
	// process: "PID STARTTIME\n" (STARTTIME from /proc, may be 0).
	MarkerName = "txnbench.owner"
	// unmarkedGrace is how old a directory without a marker must be before
	// Sweep treats it as abandoned (it may be being created right now).
	unmarkedGrace = 10 * time.Minute
)

// New creates a directory under os.TempDir() named prefix followed by
// random characters (0700) and returns its absolute path. Claim it to have
// Sweep remove it should its owner die.
func New(prefix string) (string, error) {
	dir, err := os.MkdirTemp(os.TempDir(), prefix+"*")
	if err != nil {
		return "", fmt.Errorf("creating a temporary directory: %w: set TMPDIR to a writable directory", err)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir, nil
}

// Claim records this process as the owner of dir.
func Claim(dir string) error {
	pid := os.Getpid()
	content := fmt.Sprintf("%d %d\n", pid, StartTime(pid))
	if err := os.WriteFile(filepath.Join(dir, MarkerName), []byte(content), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, MarkerName), err)
	}
	return nil
}

// Owner returns the owner pid Claim recorded in dir and its start time (0
// if unknown).
func Owner(dir string) (pid int, start uint64, err error) {
	b, err := os.ReadFile(filepath.Join(dir, MarkerName))
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

// Sweep removes the directories under os.TempDir() whose names begin with
// one of prefixes and whose recorded owner is no longer alive (or that
// have no marker and are older than 10 minutes), calling leftover (when
// not nil) on each first, to stop what still runs from it. It returns how
// many it removed.
func Sweep(leftover func(dir string), prefixes ...string) int {
	var matches []string
	for _, prefix := range prefixes {
		m, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
		matches = append(matches, m...)
	}
	n := 0
	for _, dir := range matches {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() {
			continue
		}
		pid, start, err := Owner(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) || time.Since(fi.ModTime()) < unmarkedGrace {
				continue
			}
		} else if Alive(pid, start) {
			continue
		}
		if leftover != nil {
			leftover(dir)
		}
		if os.RemoveAll(dir) == nil {
			n++
		}
	}
	return n
}

// Alive reports whether process pid exists, is not a zombie and, when start
// is known, is the same process that was recorded (not a reused pid).
func Alive(pid int, start uint64) bool {
	if pid <= 0 || pid > 1<<22 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, ok := Stat(pid)
	if !ok {
		return true // no /proc: trust kill(0)
	}
	if st.State == 'Z' || st.State == 'X' {
		return false
	}
	return start == 0 || st.Start == start
}

// Proc is what /proc/PID/stat says of a process.
type Proc struct {
	State byte   // R, S, D, T, Z, X, ...
	PPID  int    // its parent
	PGrp  int    // its process group
	Start uint64 // when it started, in clock ticks since boot
	// CPU is the process's user and system time so far; Reaped that of
	// its children it has waited for (a postmaster's backends that ended).
	CPU, Reaped time.Duration
}

// clockTick is the unit of /proc/PID/stat's times: USER_HZ, 100 on every
// Linux architecture Go runs on.
const clockTick = 10 * time.Millisecond

// Stat reads /proc/PID/stat; ok is false when it cannot.
func Stat(pid int) (p Proc, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	// The command name is in parentheses and may hold spaces or ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); then ppid, pgrp, ...; field 22 is starttime.
	if len(f) < 20 {
		return Proc{}, false
	}
	p.State = f[0][0]
	p.PPID, _ = strconv.Atoi(f[1])
	p.PGrp, _ = strconv.Atoi(f[2])
	p.Start, _ = strconv.ParseUint(f[19], 10, 64)
	var t [4]uint64 // fields 14-17: utime stime cutime cstime
	for i := range t {
		t[i], _ = strconv.ParseUint(f[11+i], 10, 64)
	}
	p.CPU, p.Reaped = time.Duration(t[0]+t[1])*clockTick, time.Duration(t[2]+t[3])*clockTick
	return p, true
}

// StartTime is when process pid started (Proc.Start), 0 when unknown.
func StartTime(pid int) uint64 {
	p, _ := Stat(pid)
	return p.Start
}

package clitest

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// ProcessesIn maps the pid of each process whose command line names a
// path in dir (an argument that is dir or starts with dir/) and holds arg
// ("" for any) to that command line, its arguments joined by spaces: what
// a run whose TMPDIR is dir left running.
func ProcessesIn(dir, arg string) map[int]string {
	ents, _ := os.ReadDir("/proc")
	found := map[int]string{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		cmd := string(b) + "\x00"
		if err == nil && (strings.Contains(cmd, dir+"/") || strings.Contains(cmd, dir+"\x00")) && strings.Contains(cmd, arg) {
			found[pid] = strings.TrimSpace(strings.ReplaceAll(cmd, "\x00", " "))
		}
	}
	return found
}

// StartQuickTrainEvents starts "run train-events" with args and Quick's.
func StartQuickTrainEvents(t testing.TB, args ...string) (cmd *exec.Cmd, stdout, stderr *Buffer) {
	t.Helper()
	return Start(t, append(TrainEvents(args...), Quick...)...)
}

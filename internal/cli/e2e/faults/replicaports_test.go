package faults

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
)

// replicasReady is the line naming the primary's port and the first
// standby's with --replicas.
const replicasReady = `PostgreSQL \S+ ready: primary on 127\.0\.0\.1:(\d+), standbys \([a-z-]+\) on ports (\d+)`

// TestFreedPrimaryPortGivesNothingAway is TestFreedPortGivesNothingAway
// with standbys, for the faults that free the primary's port: a
// failover and a switchover (the old primary fenced, its port free for
// the rest of the run, and first in the clients' URL of every member),
// and a kill-server (the primary down 5 s). A fake server run as nobody
// takes the port and asks every client that comes for a cleartext
// password, an MD5 hash or nothing: it receives no password and no query.
// The switchover's run reads from every member (--read-from any), so the
// read sessions, which go to any member, meet it too. While the fault
// holds the port, nobody can neither list nor write the directory of the
// primary's Unix socket, which the standbys' replication connections use
// (primary_conninfo), so no one can put a socket of theirs in its place.
// Each run ends with exit 0 (the workload's invariants OK where it has
// any), the refusals counted as auth.
func TestFreedPrimaryPortGivesNothingAway(t *testing.T) {
	t.Parallel()
	testutil.NeedPostgres(t)
	clitest.NobodyCommand(t) // skips unless root: the test acts as nobody
	te := append([]string{"run", "train-events", "--db", "temp-postgres", "--replicas", "1", "--clients", "3", "--duration", "9s", "--progress", "1s"}, clitest.Quick...)
	for _, c := range []struct {
		name  string
		args  []string
		fault string
	}{
		// sync: an async failover under this load may lose acknowledged
		// events, exit 3 (TestAsyncFailoverLossExits3), which is not what
		// this test is about
		{"failover", append(te[:len(te):len(te)], "--replication", "sync"), "2s:failover"},
		{"kill-server", te, "2s:kill-server:5s"},
		{"switchover-read-from-any", []string{"run", "script", "-b", "ycsb-read@95", "-b", "ycsb-update@5", "--record-count", "20",
			"--db", "temp-postgres", "--replicas", "1", "--read-from", "any", "--clients", "3", "--duration", "9s", "--progress", "1s"}, "2s:switchover"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(testutil.Artifacts(t), "freed-primary-"+c.name+".json")
			cmd, stdout, stderr := clitest.Start(t, append(c.args, "--fault", c.fault, "--json", out)...)
			clitest.WaitFor(t, stderr, 0, replicasReady)
			m := regexp.MustCompile(replicasReady).FindStringSubmatch(stderr.String())
			socketDir := primarySocketDir(t, clitest.OurPostmaster(t, mustAtoi(t, m[2])))
			im := clitest.StartImpostor(t, m[1], 3*time.Second, clitest.PGImpostor)
			clitest.WaitFor(t, stderr, 0, `fault at [\d.]+ s: `+strings.SplitN(c.fault, ":", 3)[1])
			for _, try := range [][]string{{"ls", socketDir}, {"touch", filepath.Join(socketDir, ".s.PGSQL."+m[1])}} {
				if out, err := asNobody(t, try...); err == nil {
					t.Errorf("during the fault nobody could %v: %s", try, out)
				}
			}
			clitest.WaitExit(t, cmd, 3*time.Minute, stderr)
			rep := im.Report(t)
			if !rep.Bound || rep.Startups == 0 {
				t.Fatalf("the impostor did not get port %s or no client came (bound %v, %d startups): nothing tested\n%s", m[1], rep.Bound, rep.Startups, stderr)
			}
			for _, msg := range rep.Sent {
				t.Errorf("a client answered the impostor's request %d with message %q (%d bytes)", msg.Auth, msg.Type, len(msg.Body))
			}
			code := cmd.ProcessState.ExitCode()
			if code != exitcode.OK || c.args[1] == "train-events" && !strings.Contains(stdout.String(), "invariants: OK") {
				t.Fatalf("exit %d, want 0 and the invariants OK:\n%s\n%s", code, stdout, stderr)
			}
			clitest.RefusalsAsAuth(t, out, strconv.Itoa(rep.Startups)+" startups")
		})
	}
}

// asNobody runs a command as the local user nobody; its output.
func asNobody(t *testing.T, args ...string) (string, error) {
	t.Helper()
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// primarySocketDir is the directory of the primary's Unix socket, as the
// configuration of the standby whose postmaster is standbyPM names it
// (primary_conninfo's host).
func primarySocketDir(t *testing.T, standbyPM string) string {
	t.Helper()
	conf := standbyConf(t, standbyPM)
	m := regexp.MustCompile(`primary_conninfo = '[^\n]*host=(/[^ ']+)`).FindStringSubmatch(conf)
	if m == nil {
		t.Fatalf("no socket directory in the standby's primary_conninfo:\n%s", conf)
	}
	return m[1]
}

// standbyConf is the postgresql.auto.conf of the standby whose
// postmaster is standbyPM, which txnbench writes: its primary_conninfo,
// with the password (the test runs as root).
func standbyConf(t *testing.T, standbyPM string) string {
	t.Helper()
	cmd, err := os.ReadFile("/proc/" + standbyPM + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(string(cmd), "\x00")
	conf, err := os.ReadFile(filepath.Join(args[slices.Index(args, "-D")+1], "postgresql.auto.conf"))
	if err != nil {
		t.Fatal(err)
	}
	return string(conf)
}

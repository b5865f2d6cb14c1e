package cli

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// impostorReport is what an impostor run by impostorMain saw.
type impostorReport struct {
	Bound    bool                       `json:"bound"`
	Startups int                        `json:"startups"`
	Sent     []testutil.ImpostorMessage `json:"sent"`
	// SSLRequests and Handshakes are the clients that asked a TLS
	// impostor (TXNBENCH_IMPOSTOR_TLS) for TLS, and those that went on
	// with its certificate.
	SSLRequests int `json:"ssl_requests"`
	Handshakes  int `json:"handshakes"`
}

// impostorMain is the test binary as another local user's fake server
// (TXNBENCH_IMPOSTOR_PORT): it tries to bind 127.0.0.1:PORT every 2 ms
// until it gets the port (the service on it went down), serves
// testutil.Impostor on it until three clients came or for
// TXNBENCH_IMPOSTOR_HOLD at most, asking for a cleartext password, an MD5
// hash or nothing in turn, then lets the port go and prints what it saw as
// JSON. With TXNBENCH_IMPOSTOR_TLS set it serves TLS to clients that ask,
// with a certificate of its own (testutil.ServeTLSImpostor), and lets go
// after three of them.
func impostorMain(port string) int {
	hold, err := time.ParseDuration(os.Getenv("TXNBENCH_IMPOSTOR_HOLD"))
	if err != nil {
		return 2
	}
	var rep impostorReport
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		rep.Bound = true
		auths := []int{testutil.AuthCleartext, testutil.AuthMD5, testutil.AuthOk}
		var im *testutil.Impostor
		if os.Getenv("TXNBENCH_IMPOSTOR_TLS") != "" {
			if im, err = testutil.ServeTLSImpostor(ln, auths); err != nil {
				return 2
			}
		} else {
			im = testutil.ServeImpostor(ln, auths)
		}
		// Three clients (one of each request) are enough: letting go
		// early leaves the restart its port however slow the machine.
		for end := time.Now().Add(hold); time.Now().Before(end); {
			if req, _ := im.SSLRequests(); im.Startups() >= 3 || req >= 3 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		ln.Close()
		time.Sleep(200 * time.Millisecond) // the last clients' messages
		rep.Startups, rep.Sent = im.Startups(), im.Sent()
		rep.SSLRequests, rep.Handshakes = im.SSLRequests()
		break
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}

// TestFreedPortGivesNothingAway: while a fault holds a throwaway service
// down, a fake server run as another local user (nobody) takes its port
// and asks the clients that come for a cleartext password, an MD5 hash, or
// lets them in unasked. For each kind of downtime (the server killed with
// clients on it directly and behind PgBouncer, PgBouncer killed) the
// impostor receives no password message and no query: the clients refuse
// it; and the run still ends with its verdict, the refusals counted in a
// class of their own. On the code before, the clients and PgBouncer sent
// it the passwords.
func TestFreedPortGivesNothingAway(t *testing.T) {
	testutil.NeedPostgres(t)
	testutil.NeedPgBouncer(t)
	server := `PostgreSQL \S+ ready on 127\.0\.0\.1:(\d+)`
	pooler := `ready on 127\.0\.0\.1:(\d+) in front of it`
	for _, c := range []struct {
		name  string
		args  []string
		port  string // the line naming the port the fault frees
		fault string
	}{
		{"kill-server", nil, server, "2s:kill-server:5s"},
		{"kill-server-via-pgbouncer", []string{"--via", "pgbouncer"}, server, "2s:kill-server:5s"},
		{"kill-pooler", []string{"--via", "pgbouncer"}, pooler, "2s:kill-pooler:5s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(testutil.Artifacts(t), c.name+".json")
			args := append([]string{"run", "train-events", "--db", "temp-postgres", "--clients", "3", "--duration", "9s",
				"--progress", "1s", "--fault", c.fault, "--json", out}, quick...)
			cmd, stdout, stderr := startTxnbench(t, append(args, c.args...)...)
			waitFor(t, stderr, 0, c.port)
			port := regexp.MustCompile(c.port).FindStringSubmatch(stderr.String())[1]

			// The fault leaves the service down 5 s; the impostor lets the
			// port go at most 3 s after it got it, before the restart.
			im := nobodyCommand(t)
			im.Env = append(im.Env, "TXNBENCH_IMPOSTOR_PORT="+port, "TXNBENCH_IMPOSTOR_HOLD=3s")
			imOut := &syncBuffer{}
			im.Stdout, im.Stderr = imOut, imOut
			if err := im.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { im.Process.Kill() })

			waitExit(t, cmd, 3*time.Minute, stderr)
			code := cmd.ProcessState.ExitCode()
			im.Process.Kill()
			im.Wait()
			var rep impostorReport
			if err := json.Unmarshal([]byte(imOut.String()), &rep); err != nil {
				t.Fatalf("impostor: %v: %s", err, imOut)
			}
			if !rep.Bound || rep.Startups == 0 {
				t.Fatalf("the impostor did not get port %s or no client came (bound %v, %d startups): nothing tested\n%s", port, rep.Bound, rep.Startups, stderr)
			}
			for _, m := range rep.Sent {
				t.Errorf("a client answered the impostor's request %d with message %q (%d bytes)", m.Auth, m.Type, len(m.Body))
			}
			if code != exitcode.OK || !strings.Contains(stdout.String(), "invariants: OK") {
				t.Fatalf("exit %d, want a verdict of OK:\n%s\n%s", code, stdout, stderr)
			}
			r, err := result.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			errs := map[string]int64{}
			for _, f := range r.Faults {
				if f.Recovery != nil {
					for k, n := range f.Recovery.Errors {
						errs[k] += n
					}
				}
				if strings.Contains(f.Note, "failed") {
					t.Errorf("fault: %+v", f)
				}
			}
			t.Logf("impostor: %d startups; errors in the outage by class: %v", rep.Startups, errs)
			if c.args == nil || c.port == pooler { // the clients met the impostor themselves
				if errs["auth"] == 0 || errs["other"] > 0 {
					t.Errorf("errors in the outage by class: %v: want the refusals counted as auth, none unclassified", errs)
				}
			}
		})
	}
}

package clitest

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

// ImpostorReport is what an impostor run by the test binary saw (with
// TXNBENCH_IMPOSTOR_PORT set; see Main).
type ImpostorReport struct {
	Bound    bool                       `json:"bound"`
	Conns    int                        `json:"conns"` // the connections it accepted
	Startups int                        `json:"startups"`
	Sent     []testutil.ImpostorMessage `json:"sent"`
	// SSLRequests and Handshakes are the clients that asked a TLS
	// impostor (TXNBENCH_IMPOSTOR_TLS) for TLS, and those that went on
	// with its certificate.
	SSLRequests int `json:"ssl_requests"`
	Handshakes  int `json:"handshakes"`
	// Leaked is the passwords a MySQL impostor read.
	Leaked []string `json:"leaked"`
}

// ImpostorKind is the fake server an Impostor runs.
type ImpostorKind string

const (
	// PGImpostor asks PostgreSQL clients for a cleartext password, an
	// MD5 hash or nothing (testutil.ServeImpostor).
	PGImpostor ImpostorKind = "pg"
	// PGTLSImpostor is PGImpostor serving TLS with a certificate of its
	// own (testutil.ServeTLSImpostor).
	PGTLSImpostor ImpostorKind = "pg-tls"
	// MySQLImpostor is a MySQL 8 server that asks for the password with
	// caching_sha2_password and its own RSA key, with a certificate of
	// its own or no TLS (testutil.ServeMySQLImpostor).
	MySQLImpostor ImpostorKind = "mysql"
)

// Impostor is the test binary run as an impostor by another local user
// (NobodyCommand), trying to bind a port.
type Impostor struct {
	cmd *exec.Cmd
	out *Buffer
}

// StartImpostor starts an impostor of kind on 127.0.0.1:port that holds
// it for hold at most once it got it. It is killed when the test ends.
func StartImpostor(t testing.TB, port string, hold time.Duration, kind ImpostorKind) *Impostor {
	im := &Impostor{cmd: NobodyCommand(t), out: &Buffer{}}
	im.cmd.Env = append(im.cmd.Env, "TXNBENCH_IMPOSTOR_PORT="+port, "TXNBENCH_IMPOSTOR_HOLD="+hold.String(), "TXNBENCH_IMPOSTOR_KIND="+string(kind))
	im.cmd.Stdout, im.cmd.Stderr = im.out, im.out
	if err := im.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { im.cmd.Process.Kill() })
	return im
}

// Report stops the impostor and returns what it saw.
func (im *Impostor) Report(t testing.TB) ImpostorReport {
	im.cmd.Process.Kill()
	im.cmd.Wait()
	var rep ImpostorReport
	if err := json.Unmarshal([]byte(im.out.String()), &rep); err != nil {
		t.Fatalf("impostor: %v: %s", err, im.out)
	}
	return rep
}

// RunAgainstImpostor starts txnbench with args (a run whose fault frees
// a port), waits for the line of its stderr that names the port (portRe,
// the port its first group), has an impostor that holds it 3 s at most
// take it once it is free (StartImpostor) and returns, once txnbench has
// exited, its exit code and output, the port and what the impostor saw.
func RunAgainstImpostor(t testing.TB, portRe string, kind ImpostorKind, args ...string) (code int, stdout, stderr, port string, rep ImpostorReport) {
	t.Helper()
	cmd, out, errOut := Start(t, args...)
	WaitFor(t, errOut, 0, portRe)
	port = regexp.MustCompile(portRe).FindStringSubmatch(errOut.String())[1]
	im := StartImpostor(t, port, 3*time.Second, kind)
	WaitExit(t, cmd, 3*time.Minute, errOut)
	code = cmd.ProcessState.ExitCode()
	rep = im.Report(t)
	return code, out.String(), errOut.String(), port, rep
}

// OutageErrors are the errors of r's faults' outages, by class.
func OutageErrors(r *result.Result) map[string]int64 {
	errs := map[string]int64{}
	for _, f := range r.Faults {
		if f.Recovery != nil {
			for k, n := range f.Recovery.Errors {
				errs[k] += n
			}
		}
	}
	return errs
}

// impostorMain is the test binary as another local user's fake server
// (TXNBENCH_IMPOSTOR_PORT): it tries to bind 127.0.0.1:PORT every 2 ms
// until it gets the port (the service on it went down), serves
// testutil.Impostor on it until three clients came or for
// TXNBENCH_IMPOSTOR_HOLD at most, asking for a cleartext password, an MD5
// hash or nothing in turn, then lets the port go and prints what it saw as
// JSON. With TXNBENCH_IMPOSTOR_KIND pg-tls it serves TLS to clients that
// ask, with a certificate of its own (testutil.ServeTLSImpostor), and lets
// go after three of them; with mysql it is testutil.ServeMySQLImpostor,
// letting go after three TLS requests or logins.
func impostorMain(port string) int {
	hold, err := time.ParseDuration(os.Getenv("TXNBENCH_IMPOSTOR_HOLD"))
	if err != nil {
		return 2
	}
	var rep ImpostorReport
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
		switch ImpostorKind(os.Getenv("TXNBENCH_IMPOSTOR_KIND")) {
		case PGTLSImpostor:
			im, err = testutil.ServeTLSImpostor(ln, auths)
		case MySQLImpostor:
			im, err = testutil.ServeMySQLImpostor(ln)
		default:
			im = testutil.ServeImpostor(ln, auths)
		}
		if err != nil {
			return 2
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
		rep.Conns, rep.Leaked = im.Conns(), im.Leaked()
		break
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}

// ServerReady and PoolerReady match the lines of a run's stderr that
// name the port of its throwaway PostgreSQL and of the PgBouncer in front
// of it (the port is the first group): RunAgainstImpostor's portRe.
const (
	ServerReady  = `PostgreSQL \S+ ready on 127\.0\.0\.1:(\d+)`
	MariaDBReady = `MariaDB \S+ ready on 127\.0\.0\.1:(\d+)`
	PoolerReady  = `ready on 127\.0\.0\.1:(\d+) in front of it`
)

// RefusalsAsAuth loads the result a run against an impostor
// (RunAgainstImpostor) wrote to out and checks its faults' outages: a
// refusal is class auth, never unclassified. met says what the impostor
// saw ("3 startups"), for the log. Which connections meet the impostor is
// the machine's: on a busy one txnbench's own readiness probes and console
// reads may be what it saw, the clients finding the port free
// (connect_refused) instead; so no auth error at all is logged, not
// failed. It returns the result.
func RefusalsAsAuth(t testing.TB, out, met string) *result.Result {
	t.Helper()
	r := LoadResult(t, out)
	errs := OutageErrors(r)
	t.Logf("impostor: %s; errors in the outage by class: %v", met, errs)
	if errs["other"] > 0 {
		t.Errorf("errors in the outage by class: %v: want the refusals counted as auth, none unclassified", errs)
	}
	if errs["auth"] == 0 {
		t.Logf("no client met the impostor in this outage (%s, %v): the refusal's class was not exercised", met, errs)
	}
	return r
}

package localdb

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTLS serves TLS from a cluster and a PgBouncer in front of it, each
// with a certificate of the run's CA: clients verify them (verify-full),
// PgBouncer refuses clients without TLS and verifies the server's
// certificate over TCP, and refuses a server whose certificate another CA
// signed.
func TestTLS(t *testing.T) {
	needPgBouncer(t)
	needBin(t)
	psqlBin := psqlOrSkip(t)
	ca, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, Options{TLS: ca})
	if !strings.Contains(c.URL(), "sslmode=verify-full") || c.CAFile() == "" {
		t.Fatalf("URL() = %q, CAFile() = %q: want verify-full against the CA", c.URL(), c.CAFile())
	}
	for _, f := range []string{c.tls.ca, c.tls.cert, c.tls.key} {
		fi, err := os.Stat(f)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", f, err, fi.Mode().Perm())
		}
	}
	const sslQuery = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
	if out, err := psql(t, psqlBin, c.URL(), sslQuery); err != nil || out != "t" {
		t.Errorf("the server's own session: ssl = %q, %v; want t", out, err)
	}
	pw, verifier, err := NewLogin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := psql(t, psqlBin, c.URL(), "CREATE ROLE tls_login LOGIN PASSWORD '"+verifier+"'"); err != nil {
		t.Fatalf("CREATE ROLE: %v", err)
	}
	bo := BouncerOptions{BackendHost: "127.0.0.1", BackendPort: c.Port(), BackendUser: "tls_login", Password: pw, Verifier: verifier, TLS: ca}

	// Over TCP PgBouncer's server connections are TLS too, verified.
	b := startBouncer(t, bo)
	if out, err := psql(t, psqlBin, b.URL("postgres"), sslQuery); err != nil || out != "t" {
		t.Errorf("through PgBouncer: the server connection's ssl = %q, %v; want t", out, err)
	}
	plain := strings.Replace(b.URL("postgres"), clientTLS(b.tls.ca), "sslmode=disable", 1)
	_, err = psql(t, psqlBin, plain, "SELECT 1")
	errSays(t, "a client without TLS", err, "SSL required")

	// On the server's Unix socket there is no TLS to verify.
	if c.SocketDir() != "" {
		sb := bo
		sb.BackendHost = c.SocketDir()
		b := startBouncer(t, sb)
		if out, err := psql(t, psqlBin, b.URL("postgres"), sslQuery); err != nil || out != "f" {
			t.Errorf("through PgBouncer on the Unix socket: ssl = %q, %v; want f", out, err)
		}
	}

	// A server whose certificate another CA signed is not the server.
	other, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	ob := bo
	ob.TLS = other
	b2 := startBouncer(t, ob)
	if answered, log := psqlUntilLogged(t, psqlBin, b2.URL("postgres"), filepath.Join(b2.Dir(), bouncerLogName), "certificate verify failed"); answered {
		t.Errorf("PgBouncer logged in to a server whose certificate its CA did not sign")
	} else if !strings.Contains(log, "certificate verify failed") {
		t.Errorf("PgBouncer's log does not say why it did not log in to the server:\n%s", log)
	}
	// And a client of one CA does not accept a PgBouncer of the other.
	foreign := strings.Replace(b2.URL("postgres"), url.QueryEscape(b2.tls.ca), url.QueryEscape(b.tls.ca), 1)
	_, err = psql(t, psqlBin, foreign, "SELECT 1")
	errSays(t, "a client verifying against another CA", err, "certificate verify failed")
}

// psqlUntilLogged runs SELECT 1 with psql through url until it ends or the
// log at logPath says want, and then stops it: a client PgBouncer cannot
// serve waits for its connect timeout (10 s), the log says why at once.
// It reports whether psql got its answer, and the log.
func psqlUntilLogged(t *testing.T, bin, url, logPath, want string) (answered bool, log string) {
	t.Helper()
	cmd := exec.Command(bin, "-X", libpqURL(url), "-Atc", "SELECT 1")
	cmd.Env = append(childEnv(), "PGCONNECT_TIMEOUT=10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	logged := func() bool {
		b, _ := os.ReadFile(logPath)
		log = string(b)
		return strings.Contains(log, want)
	}
	for deadline := time.Now().Add(15 * time.Second); ; {
		select {
		case err := <-ended:
			logged()
			return err == nil, log
		case <-time.After(20 * time.Millisecond):
		}
		if logged() || time.Now().After(deadline) {
			cmd.Process.Kill()
			return <-ended == nil, log
		}
	}
}

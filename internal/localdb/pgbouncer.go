package localdb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/txnbench/txnbench/internal/pooler"
	"github.com/txnbench/txnbench/internal/tempdir"
)

const (
	// bouncerConfName, bouncerAuthName, bouncerPidName and bouncerLogName
	// are the files in a PgBouncer directory.
	bouncerConfName = "pgbouncer.ini"
	bouncerAuthName = "users.txt"
	bouncerPidName  = "pgbouncer.pid"
	bouncerLogName  = "pgbouncer.log"

	bouncerReadyTimeout = 30 * time.Second
	// bouncerSafeStopTimeout is how long Stop waits after SIGINT (safe
	// shutdown: PgBouncer waits for running transactions, and in session
	// mode for clients to leave) before shutting it down at once.
	bouncerSafeStopTimeout = 5 * time.Second

	// bouncerFdReserve is how many file descriptors PgBouncer gets beyond
	// one per client and per server connection: listening sockets, the log,
	// DNS, the admin console.
	bouncerFdReserve = 50
	// maxBouncerBacklog caps listen_backlog; the kernel caps it further at
	// net.core.somaxconn.
	maxBouncerBacklog = 4096

	// debianPgBouncer is where Debian and Ubuntu install pgbouncer; /usr/sbin
	// is often not on a normal user's PATH.
	debianPgBouncer = "/usr/sbin/pgbouncer"
)

// errBouncerNotFound is the one-line error FindPgBouncer returns when
// discovery fails.
var errBouncerNotFound = errors.New("PgBouncer not found: install it (Debian: apt-get install pgbouncer) or pass --pgbouncer-bin PATH")

// BouncerOptions configures a throwaway PgBouncer in front of a server.
type BouncerOptions struct {
	// Bin is the pgbouncer binary; "" discovers it with FindPgBouncer.
	Bin string
	// BackendHost is the server's host (or Unix socket directory); ""
	// means 127.0.0.1.
	BackendHost string
	// BackendPort is the server's port.
	BackendPort int
	// BackendUser is the user PgBouncer logs in to the server as. Clients
	// connect to PgBouncer under the same name, with a password of its own
	// made for each PgBouncer (URL and AdminURL carry it); it is also
	// PgBouncer's admin and stats user.
	BackendUser string
	// BackendPassword is BackendUser's password on the server; "" when the
	// server trusts it.
	BackendPassword string
	// PoolMode is one of pooler.Modes; "" is pooler.DefaultMode.
	PoolMode string
	// PoolSize is default_pool_size, the server connections per database
	// and user; 0 means pooler.DefaultSize.
	PoolSize int
	// MaxClientConn is max_client_conn; 0 means pooler.DefaultMaxClientConn. Size it for the
	// clients that will connect.
	MaxClientConn int
	// Port is the TCP port on 127.0.0.1; 0 picks a free one in 20000-32000.
	Port int
	// Password is what clients log in with; "" makes a new one. A fleet's
	// members share one, so that clients log in to any of them alike.
	Password string
	// Verifier, when set, is Password's SCRAM verifier (NewLogin) and the
	// very one the server stores for BackendUser (CREATE ROLE ... PASSWORD
	// 'SCRAM-SHA-256$...'). The auth file then holds it instead of the
	// password, so PgBouncer checks a login with two hashes instead of
	// deriving a key (PBKDF2, 4,096 rounds) on its one thread for each,
	// and logs in to the server with the keys of a client's login (SCRAM
	// pass-through, which PgBouncer uses whenever the auth file holds a
	// verifier): BackendPassword must then be "". Without it the auth
	// file holds the password, for a server whose stored secret is not
	// known.
	Verifier string
	// Log receives PgBouncer's log. When nil the log is kept in a file
	// inside its directory and the last lines are included in startup
	// errors.
	Log io.Writer
	// TLS, when set, makes PgBouncer serve TLS to its clients
	// (client_tls_sslmode=require) with a certificate it signs, which its
	// clients (URL) verify, and verify the server's against it over TCP
	// (server_tls_sslmode=verify-full): the server must hold a certificate
	// of the same CA (Options.TLS). On a Unix socket there is no TLS.
	TLS *CA
	// plainToo lets clients in without TLS too (client_tls_sslmode=prefer),
	// for the health checks of a fleet's HAProxy, which speak plain text.
	plainToo bool
}

// Bouncer is a running throwaway PgBouncer. Its methods are safe for
// concurrent use. Restart starts it again on the same port (its counters
// start from zero); Stop asks for a safe shutdown (SIGINT: running
// transactions finish), after 5 s for an immediate one, then kills it, and
// removes the directory.
type Bouncer struct {
	supervised // its lock, directory, port, process; Restart and Stop
	bin        string
	version    string
	o          BouncerOptions // with defaults filled in
	user       *runAs         // nil: run as ourselves
	log        *serverLog
	password   string   // what clients log in to PgBouncer with
	tls        tlsFiles // its certificate, key and CA; zero without TLS
}

// FindPgBouncer returns the path of the pgbouncer binary. A non-empty hint
// (from --pgbouncer-bin) must be the binary or a directory holding it.
// Otherwise it tries PATH, then /usr/sbin/pgbouncer.
func FindPgBouncer(hint string) (string, error) {
	if hint != "" {
		path, err := filepath.Abs(hint)
		if err != nil {
			return "", fmt.Errorf("--pgbouncer-bin %s: %w: pass the path of the pgbouncer binary", hint, err)
		}
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			path = filepath.Join(path, "pgbouncer")
		}
		if !isExecutable(path) {
			return "", fmt.Errorf("--pgbouncer-bin %s: no executable pgbouncer at %s: pass the path of the pgbouncer binary, or install it (Debian: apt-get install pgbouncer)", hint, path)
		}
		return path, nil
	}
	if path := onPathOrSbin("pgbouncer", debianPgBouncer); path != "" {
		return path, nil
	}
	return "", errBouncerNotFound
}

var bouncerVersionRE = regexp.MustCompile(`(?i)pgbouncer(?:\s+version)?\s+(\d+(?:\.\d+)+)`)

// parseBouncerVersion finds the version in `pgbouncer --version` output:
// "PgBouncer 1.18.0" (or "pgbouncer version 1.7.2" before 1.8).
func parseBouncerVersion(out string) (string, bool) {
	if m := bouncerVersionRE.FindStringSubmatch(out); m != nil {
		return m[1], true
	}
	return "", false
}

// bouncerVersion runs `pgbouncer --version` and returns e.g. "1.18.0".
func bouncerVersion(bin string) (string, error) {
	return toolVersion(bin, "--version", bouncerVersionRE.FindStringSubmatch, "a PgBouncer",
		"check that --pgbouncer-bin points at a working pgbouncer")
}

// withDefaults checks o and fills in its defaults. It fails on anything
// PgBouncer would reject or that cannot be written into its configuration.
func (o BouncerOptions) withDefaults() (BouncerOptions, error) {
	// the mode as PgBouncer reads it: case and spaces aside
	o.PoolMode = pooler.Mode(strings.ToLower(strings.TrimSpace(o.PoolMode)))
	o.PoolSize = pooler.Size(o.PoolSize)
	if err := pooler.Check(o.PoolMode, o.PoolSize); err != nil {
		return o, err
	}
	switch {
	case o.MaxClientConn < 0 || o.MaxClientConn > 1<<30:
		return o, fmt.Errorf("PgBouncer max_client_conn %d: want 1-%d, or 0 for %d", o.MaxClientConn, 1<<30, pooler.DefaultMaxClientConn)
	case o.MaxClientConn == 0:
		o.MaxClientConn = pooler.DefaultMaxClientConn
	}
	if o.Port < 0 || o.Port > 65535 {
		return o, fmt.Errorf("PgBouncer port %d is out of range: use 1-65535, or 0 to pick a free one", o.Port)
	}
	if o.BackendPort < 1 || o.BackendPort > 65535 {
		return o, fmt.Errorf("PgBouncer backend port %d is out of range: give the server's port, 1-65535", o.BackendPort)
	}
	if o.BackendHost == "" {
		o.BackendHost = "127.0.0.1"
	}
	if strings.ContainsFunc(o.BackendHost, isCtlOrSpace) {
		return o, fmt.Errorf("PgBouncer backend host %q holds a space or control character: give a host name or address", o.BackendHost)
	}
	if o.BackendUser == "" {
		return o, errors.New("PgBouncer needs the user to log in to the server as: give one in the target URL")
	}
	// The name goes into admin_users (a comma-separated list), the auth
	// file (double-quoted) and a connection string (single-quoted).
	if strings.ContainsFunc(o.BackendUser, isCtlOrSpace) || strings.ContainsAny(o.BackendUser, `,"`) {
		return o, fmt.Errorf("PgBouncer cannot use user name %q: it holds a space, comma, double quote or control character: use another user", o.BackendUser)
	}
	if strings.ContainsFunc(o.Password, isCtl) {
		return o, errors.New("PgBouncer cannot use the client password: it holds a control character (a newline?)")
	}
	if o.Verifier != "" && (o.Password == "" || o.BackendPassword != "") {
		return o, errors.New("PgBouncer with a SCRAM verifier needs the client password it was made from, and logs in to the server with it: give Password, not BackendPassword")
	}
	if strings.ContainsFunc(o.Verifier, isCtlOrSpace) || strings.Contains(o.Verifier, `"`) {
		return o, errors.New("PgBouncer cannot use the SCRAM verifier: it holds a space, double quote or control character")
	}
	if strings.ContainsFunc(o.BackendPassword, isCtl) {
		return o, errors.New("PgBouncer cannot use the backend password: it holds a control character (a newline?)")
	}
	return o, nil
}

func isCtl(r rune) bool        { return r < 0x20 || r == 0x7f }
func isCtlOrSpace(r rune) bool { return isCtl(r) || r == ' ' }

// StartPgBouncer writes a configuration into a new temporary directory and
// starts pgbouncer on 127.0.0.1 in front of the server o names, returning
// once it accepts TCP connections. On any error it leaves nothing behind.
// It first removes directories left behind by dead txnbench processes
// (CleanStale). It does not connect to the server: PgBouncer does that when
// the first client arrives.
//
// PgBouncer needs a file descriptor per client and per server connection.
// StartPgBouncer makes sure processes txnbench starts may open
// MaxClientConn+PoolSize+50 files: it raises the soft RLIMIT_NOFILE of
// txnbench itself (which children inherit; the hard limit too when running
// as root) and fails when the hard limit is lower and cannot be raised.
//
// pgbouncer refuses to run as root: when txnbench runs as root it runs as
// the same unprivileged user as the clusters. It is started with
// Pdeathsig=SIGKILL so it goes away if txnbench is killed, with the same
// caveat as Start: do not call StartPgBouncer from a goroutine that exits
// while locked to its OS thread.
func StartPgBouncer(ctx context.Context, o BouncerOptions) (*Bouncer, error) {
	CleanStale()
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	bin, err := FindPgBouncer(o.Bin)
	if err != nil {
		return nil, err
	}
	b := &Bouncer{bin: bin, o: o}
	err = b.startPooler(ctx, poolerPrep{
		name: "PgBouncer", proc: "pgbouncer", bin: bin, version: bouncerVersion,
		nofile: uint64(o.MaxClientConn) + uint64(o.PoolSize) + bouncerFdReserve, maxConn: o.MaxClientConn,
		dirPrefix: bouncerDirPrefix,
		checkDir: func(dir string) error {
			if strings.ContainsFunc(dir, isCtl) {
				return fmt.Errorf("temporary directory %q holds a control character, which a PgBouncer configuration cannot: set TMPDIR to a plain path", dir)
			}
			return nil
		},
		setup: b.setup, port: o.Port,
	}, b.startProcess, b.stopProcess)
	if err != nil {
		return nil, err
	}
	b.stopNow = b.stopImmediately
	return b, nil
}

// setup records the user PgBouncer runs as and its version, and writes its
// auth file before its first start.
func (b *Bouncer) setup(u *runAs, version string) error {
	b.user, b.version = u, version
	// Clients log in with a password of this PgBouncer's own (SCRAM, from
	// the auth file); the server password, if any, goes into the
	// [databases] connection string, so clients never learn it.
	if b.password = b.o.Password; b.password == "" {
		var err error
		if b.password, err = NewPassword(); err != nil {
			return err
		}
	}
	// With a verifier (see BouncerOptions.Verifier) PgBouncer checks each
	// login with two hashes; with the password it derives a key (PBKDF2,
	// 4,096 rounds) on its one thread for every login, which made a
	// thousand clients logging in at once wait past their connect timeout.
	secret := cmp.Or(b.o.Verifier, b.password)
	auth := fmt.Sprintf("%s %s\n", authQuote(b.o.BackendUser), authQuote(secret))
	if err := b.writeFile(bouncerAuthName, auth); err != nil {
		return err
	}
	if b.o.TLS != nil {
		var err error
		if b.tls, err = b.o.TLS.issue(b.dir, u); err != nil {
			return err
		}
	}
	b.log = newServerLog(filepath.Join(b.dir, bouncerLogName), u, b.o.Log)
	return nil
}

// URL returns the URL clients use to reach database dbname through
// PgBouncer, as BouncerOptions.BackendUser with this PgBouncer's password:
// mask it (target.MaskURL) wherever it is shown. It requires SCRAM
// (scramOnly), and with BouncerOptions.TLS verifies PgBouncer's
// certificate against the run's CA (sslmode=verify-full).
func (b *Bouncer) URL(dbname string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(b.o.BackendUser, b.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port())),
		Path:     "/" + dbname,
		RawQuery: clientTLS(b.tls.ca) + "&" + scramOnly,
	}
	return u.String()
}

// AdminURL returns the URL of PgBouncer's admin console (database
// pgbouncer), as a user that is both admin and stats user, so SHOW STATS,
// SHOW POOLS and the admin commands work there. The console speaks only the
// simple query protocol. It stays the same across restarts (same port and
// password), so a run's pooler.Watcher opens it once (pooler.Open).
func (b *Bouncer) AdminURL() string { return b.URL("pgbouncer") }

// Version returns the PgBouncer version, e.g. "1.18.0".
func (b *Bouncer) Version() string { return b.version }

// Dir returns PgBouncer's temporary directory, which holds its
// configuration (pgbouncer.ini), pid file, Unix socket and log.
func (b *Bouncer) Dir() string { return b.dir }

// config returns pgbouncer.ini for listening on port. Values run to the end
// of their line, unquoted; connection-string values are single-quoted.
func (b *Bouncer) config(port int) string {
	o := b.o
	connstr := fmt.Sprintf("host=%s port=%d", cstrQuote(o.BackendHost), o.BackendPort)
	if o.Verifier == "" {
		connstr += " user=" + cstrQuote(o.BackendUser)
		if o.BackendPassword != "" {
			connstr += " password=" + cstrQuote(o.BackendPassword)
		}
	}
	// With a verifier PgBouncer logs in to the server as the client did
	// (the auth file's one user), with the keys of the client's login.
	sockDir := ""
	if len(b.dir)+len("/.s.PGSQL.65535") <= maxSocketPath {
		sockDir = b.dir
	}
	resetQuery := ""
	if o.PoolMode == "session" {
		resetQuery = "DISCARD ALL"
	}
	backlog := min(max(o.MaxClientConn, 128), maxBouncerBacklog)
	var c strings.Builder
	c.WriteString("; Written by txnbench for a throwaway PgBouncer; removed with its directory.\n\n")
	c.WriteString("[databases]\n")
	c.WriteString("; Any database name goes to the same server, as the same user.\n")
	fmt.Fprintf(&c, "* = %s\n\n", connstr)
	c.WriteString("[pgbouncer]\n")
	for _, kv := range [][2]string{
		{"listen_addr", "127.0.0.1"},
		{"listen_port", strconv.Itoa(port)},
		{"listen_backlog", strconv.Itoa(backlog)},
		{"unix_socket_dir", sockDir}, // "" when the path is too long: TCP only
		{"pidfile", filepath.Join(b.dir, bouncerPidName)},
		// The log goes to stderr, which Bouncer keeps.
		{"logfile", ""},
		{"syslog", "0"},
		// Per-connection log lines would cost PgBouncer's single thread
		// a write per connect in connect-per-transaction runs.
		{"log_connections", "0"},
		{"log_disconnections", "0"},
		{"log_pooler_errors", "1"},
		// Every client, the admin console's too, logs in with the
		// password in the auth file: no other local user gets in.
		{"auth_type", "scram-sha-256"},
		{"auth_file", filepath.Join(b.dir, bouncerAuthName)},
		{"admin_users", o.BackendUser},
		{"stats_users", o.BackendUser},
		{"pool_mode", o.PoolMode},
		{"default_pool_size", strconv.Itoa(o.PoolSize)},
		{"max_client_conn", strconv.Itoa(o.MaxClientConn)},
		{"max_db_connections", "0"},
		{"server_reset_query", resetQuery},
		// Drivers send these; PgBouncer refuses unknown startup
		// parameters otherwise.
		{"ignore_startup_parameters", "extra_float_digits,application_name,statement_timeout"},
	} {
		fmt.Fprintf(&c, "%s = %s\n", kv[0], kv[1])
	}
	if b.tls.ca != "" {
		mode := "require"
		if o.plainToo {
			mode = "prefer"
		}
		for _, kv := range [][2]string{
			{"client_tls_sslmode", mode},
			{"client_tls_cert_file", b.tls.cert},
			{"client_tls_key_file", b.tls.key},
			{"server_tls_sslmode", "verify-full"},
			{"server_tls_ca_file", b.tls.ca},
		} {
			fmt.Fprintf(&c, "%s = %s\n", kv[0], kv[1])
		}
	}
	return c.String()
}

// cstrQuote quotes a PgBouncer connection-string value.
func cstrQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// authQuote quotes a PgBouncer auth-file field.
func authQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// writeFile writes a file into PgBouncer's directory, readable only by the
// user pgbouncer runs as (it may hold a password).
func (b *Bouncer) writeFile(name, content string) error {
	return writeSecret(filepath.Join(b.dir, name), content, b.user)
}

// startProcess writes the configuration for port, launches pgbouncer and
// waits until it accepts connections. On failure nothing is left running.
func (b *Bouncer) startProcess(ctx context.Context, port int) (*server, error) {
	if err := b.writeFile(bouncerConfName, b.config(port)); err != nil {
		return nil, err
	}
	// A pid file left by a killed pgbouncer names a pid that may have been
	// reused: pgbouncer would refuse to start.
	_ = os.Remove(filepath.Join(b.dir, bouncerPidName))
	return spawn(ctx, process{
		name: "pgbouncer", path: b.bin, args: []string{filepath.Join(b.dir, bouncerConfName)},
		dir: b.dir, user: b.user, log: b.log, binFlag: "--pgbouncer-bin",
		// SIGKILL, not a shutdown signal: their meaning changed in 1.23,
		// and pgbouncer has no children or state to save.
		deathSig: syscall.SIGKILL,
	}, readiness{
		what: "PgBouncer", timeout: bouncerReadyTimeout, logName: "PgBouncer log",
		late: "was not accepting connections after %s: see its log below; on an overloaded machine, try again",
		ready: func(s *server) (bool, error) {
			// PgBouncer that cannot bind the TCP port keeps running when
			// it has its Unix socket: watch its log for that.
			if err := b.listenFailure(s, port); err != nil {
				return false, err
			}
			return accepting(s.pid, port), nil
		},
		exited: func(s *server) error { return b.exitError(s, port) },
	})
}

// accepting reports whether a TCP connection to 127.0.0.1:port succeeds
// and the listening socket is pid's, not another program's on a port
// pgbouncer failed to bind. Where /proc cannot tell whose the socket is, pid
// must at least still be running after the connect.
func accepting(pid, port int) bool {
	if owns, known := listensOn(pid, port); known && !owns {
		return false
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return tempdir.Alive(pid, 0)
}

// listensOn reports whether process pid holds a TCP socket listening on
// port, from /proc/net/tcp and /proc/PID/fd; known is false when /proc
// cannot tell.
func listensOn(pid, port int) (owns, known bool) {
	socks := listeningSockets(port)
	if socks == nil {
		return false, false
	}
	if len(socks) == 0 {
		return false, true
	}
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		// An exited process (a zombie until reaped) has no fd list.
		return false, !tempdir.Alive(pid, 0)
	}
	for _, e := range ents {
		if link, err := os.Readlink(filepath.Join(fdDir, e.Name())); err == nil {
			if _, ok := socks[link]; ok {
				return true, true
			}
		}
	}
	return false, true
}

// listenFailure returns an error when pgbouncer s has logged that it
// cannot listen on 127.0.0.1:port.
func (b *Bouncer) listenFailure(s *server, port int) error {
	needle := fmt.Sprintf("cannot listen on 127.0.0.1:%d", port)
	tail := b.log.since(s.logMark)
	for _, l := range tail {
		i := strings.Index(l, needle)
		if i < 0 {
			continue
		}
		e := &startError{tail: tail, logName: "PgBouncer log"}
		if strings.Contains(l, "Address already in use") {
			e.portInUse = true
			e.msg = portInUseMsg(port)
		} else {
			e.msg = fmt.Sprintf("PgBouncer %s: choose another port, or 0 to pick a free one", strings.TrimSpace(l[i:]))
		}
		return e
	}
	return nil
}

// exitError describes a pgbouncer that exited during startup.
func (b *Bouncer) exitError(s *server, port int) error {
	tail := b.log.since(s.logMark)
	return exitedError(s, tail, port, "PgBouncer log", []string{"Address already in use"},
		fmt.Sprintf("PgBouncer exited during startup (%v): %s: see its log below", s.err, summarizeBouncer(tail)))
}

// summarizeBouncer returns the most telling PgBouncer log line: the first
// ERROR or FATAL message ("... [pid] FATAL text"), else what summarize says.
func summarizeBouncer(lines []string) string {
	for _, l := range lines {
		for _, lvl := range []string{" ERROR ", " FATAL "} {
			if i := strings.Index(l, lvl); i >= 0 {
				return strings.TrimSpace(l[i:])
			}
		}
	}
	return summarize(lines)
}

// stopProcess shuts pgbouncer s down: SIGINT (safe shutdown), then
// stopNow.
func (b *Bouncer) stopProcess(s *server) error {
	return signalStop(s, syscall.SIGINT, bouncerSafeStopTimeout, b.stopImmediately)
}

// stopImmediately shuts pgbouncer s down at once (StopNow): the
// immediate-shutdown signal, then SIGKILL.
func (b *Bouncer) stopImmediately(s *server) error {
	return signalStop(s, b.immediateSignal(), killTimeout, killServer)
}

// immediateSignal is the signal for an immediate shutdown: SIGTERM until
// PgBouncer 1.23 made that a "super safe" shutdown and SIGQUIT immediate.
func (b *Bouncer) immediateSignal() syscall.Signal {
	if v, ok := parseVersionParts(b.version); ok && !versionLess(v, []int{1, 23}) {
		return syscall.SIGQUIT
	}
	return syscall.SIGTERM
}

// nofileMu serializes raiseNofile's read-modify-write of the limit.
var nofileMu sync.Mutex

// raiseNofile makes sure child processes started from now on may open need
// files (who names the process that needs them, for messages). Go raises its own soft RLIMIT_NOFILE at startup but gives children
// the original one, unless the program calls Setrlimit itself: so it always
// sets the limit, raising the soft limit to need if lower and, when need is
// above the hard limit, the hard limit too (only root may). The raised
// limit applies to every later child (servers too), which does no harm.
func raiseNofile(need uint64, who string) error {
	nofileMu.Lock()
	defer nofileMu.Unlock()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("reading the open-files limit: %w", err)
	}
	if need > lim.Max {
		want := syscall.Rlimit{Cur: need, Max: need}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
			return fmt.Errorf("%s needs %d open files, but the limit is %d and cannot be raised (%v): raise the hard limit (ulimit -Hn, or LimitNOFILE= for a service) or use fewer clients",
				who, need, lim.Max, err)
		}
		return nil
	}
	lim.Cur = max(lim.Cur, need)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("raising the open-files limit to %d for %s: %w", lim.Cur, who, err)
	}
	return nil
}

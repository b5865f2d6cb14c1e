package localdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/txnbench/txnbench/internal/tempdir"
)

const (
	// Ports are picked from portMin..portMax: below 32768, where the kernel
	// starts handing out ports for outgoing connections.
	portMin = 20000
	portMax = 32000
	// maxPortTries is how many ports Start tries when another process grabs
	// the picked port first; Restart retries its fixed port as often.
	maxPortTries = 5

	readyTimeout = 60 * time.Second
	stopTimeout  = 10 * time.Second
	killTimeout  = 5 * time.Second
	pollInterval = 20 * time.Millisecond

	// logTailLines is how many server log lines a startup error carries.
	logTailLines = 20
	// logFileName is the server log inside the data directory when
	// Options.Log is nil.
	logFileName = "server.log"
	// maxSocketPath is the longest Unix socket path Linux accepts
	// (sun_path is 108 bytes including the terminating NUL).
	maxSocketPath = 107
)

// Options configures a throwaway cluster.
type Options struct {
	// BinDir is the directory holding initdb and postgres; "" discovers it
	// with FindBinDir.
	BinDir string
	// Conf holds extra server settings, each "key=value", passed as
	// `-c key=value` after the defaults so they override them.
	Conf []string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one in 20000-32000.
	Port int
	// Log receives the server's stdout and stderr. When nil the output is
	// kept in a file inside the data directory and the last lines are
	// included in startup errors.
	Log io.Writer
	// TLS, when set, makes the server serve TLS (ssl=on) with a
	// certificate it signs, and its clients (URL) verify it.
	TLS *CA
}

// Cluster is a running throwaway cluster. Its methods are safe for
// concurrent use. Restart does a fast shutdown and starts the server again
// on the same port and directory, returning once it accepts connections (a
// Stop meanwhile waits for it: cancel ctx to hurry it); Stop does a fast
// shutdown, then SIGKILL after 10 s, and removes the directory.
type Cluster struct {
	supervised // its lock, directory, port, postmaster; Restart and Stop
	bin        string
	dataDir    string
	version    string
	args       []string // postgres arguments after -D and -p
	user       *runAs   // nil: run as ourselves
	log        *serverLog
	password   string   // the postgres superuser's, new for each cluster
	socketDir  string   // where its Unix socket is; "" when TCP only
	tls        tlsFiles // its certificate, key and CA; zero without TLS
	ca         *CA      // the CA that signed its certificate; nil without TLS
	// replica is set on the members of a ReplicaSet: a hot standby is
	// ready once it accepts read-only connections.
	replica bool
}

// server is one postmaster (or pgbouncer) process and its reaper.
type server struct {
	name    string // "postgres" or "pgbouncer", for errors
	cmd     *exec.Cmd
	pid     int
	done    chan struct{} // closed when cmd.Wait returned
	err     error         // cmd.Wait's result; read only after done
	logMark int64         // server log position when it was launched
}

// Start creates a temporary directory, runs initdb in it and starts a
// PostgreSQL server on 127.0.0.1, returning once the server accepts
// connections. On any error it leaves nothing behind. Start first removes
// clusters left behind by dead txnbench processes (CleanStale).
//
// The server is started with Pdeathsig=SIGQUIT so it shuts down if txnbench
// is killed. Linux sends that signal when the OS thread that started the
// child exits, not only the process; the Go runtime keeps its threads alive
// unless a goroutine exits while locked with runtime.LockOSThread, so callers
// must not call Start from such a goroutine. A server that outlives a killed
// txnbench anyway is removed by the next CleanStale.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	return makeCluster(ctx, o, o.Port, func(c *Cluster) (err error) {
		if c.password, err = NewPassword(); err != nil {
			return err
		}
		return c.initdb(ctx)
	})
}

// makeCluster makes a cluster of o (newCluster), its data directory with
// makeData, configures it and starts it on port (0: a free one). On error
// it leaves nothing behind.
func makeCluster(ctx context.Context, o Options, port int, makeData func(*Cluster) error) (*Cluster, error) {
	c, err := newCluster(o)
	if err != nil {
		return nil, err
	}
	if err = makeData(c); err == nil {
		if err = c.configure(o); err == nil {
			err = c.firstStart(ctx, port)
		}
	}
	if err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// newCluster checks o and makes the temporary directory of a cluster to
// come, handed to the user it runs as; its data directory is still to
// make (initdb, or a base backup for a standby). On error nothing is left.
func newCluster(o Options) (*Cluster, error) {
	CleanStale()
	if err := validateConf(o.Conf, "--pg-conf"); err != nil {
		return nil, err
	}
	if o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("port %d is out of range: use 1-65535, or 0 to pick a free one", o.Port)
	}
	bin, err := FindBinDir(o.BinDir)
	if err != nil {
		return nil, err
	}
	u, err := unprivilegedUser("initdb and postgres")
	if err != nil {
		return nil, err
	}
	if err := u.checkReachable(filepath.Join(bin, "postgres")); err != nil {
		return nil, fmt.Errorf("PostgreSQL binaries in %s are not usable by user %s: %w: install them where that user can reach them, or run txnbench as a normal user", bin, u.name, err)
	}
	version, err := serverVersion(bin)
	if err != nil {
		return nil, err
	}

	dir, err := tempDir(dirPrefix)
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		supervised: supervised{name: "PostgreSQL", dir: dir, stop: stopServer, stopNow: stopServerNow},
		bin:        bin,
		dataDir:    filepath.Join(dir, "data"),
		version:    version,
		user:       u,
	}
	c.start = c.startServer
	if err := claimDir(dir, u, "postgres"); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// configure sets the server's log and arguments from o once its data
// directory is made.
func (c *Cluster) configure(o Options) error {
	dir, u := c.dir, c.user
	c.log = newServerLog(filepath.Join(c.dataDir, logFileName), u, o.Log)
	c.args = []string{"-c", "listen_addresses=127.0.0.1"}
	if len(dir)+len("/.s.PGSQL.65535") <= maxSocketPath {
		c.socketDir = dir
		c.args = append(c.args, "-c", "unix_socket_directories="+quoteDirList(dir))
	} else {
		// Too long for a Unix socket: TCP only.
		c.args = append(c.args, "-c", "unix_socket_directories=")
	}
	if o.TLS != nil {
		c.ca = o.TLS
		var err error
		if c.tls, err = o.TLS.issue(dir, u); err != nil {
			return err
		}
		c.args = append(c.args, "-c", "ssl=on", "-c", "ssl_cert_file="+c.tls.cert, "-c", "ssl_key_file="+c.tls.key)
	}
	conf := o.Conf
	if hasPgStatStatements(c.bin) {
		conf = withPreload(conf, "pg_stat_statements")
	}
	for _, kv := range conf {
		c.args = append(c.args, "-c", kv)
	}
	return nil
}

// URL returns the connection URL of the cluster's postgres superuser,
// with its password: mask it (target.MaskURL) wherever it is shown. It
// requires SCRAM (scramOnly), and with Options.TLS verifies the server's
// certificate against the run's CA (sslmode=verify-full).
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/postgres?%s&%s", c.password, c.Port(), clientTLS(c.tls.ca), scramOnly)
}

// CAFile returns the path of the run's CA certificate that the server's
// certificate is verified against, or "" when it serves no TLS.
func (c *Cluster) CAFile() string { return c.tls.ca }

// CA returns the CA that signed the server's certificate (Options.TLS),
// or nil: a PgBouncer in front of it serves certificates of the same CA.
func (c *Cluster) CA() *CA { return c.ca }

// scramOnly is the URL parameter of every throwaway service's clients
// (libpq's require_auth, which pgx honours): they log in only by
// SCRAM-SHA-256 and check the server's signature, so they send no
// password when a server asks for a cleartext one or an MD5 hash, and go
// no further with one that lets them in unasked. While a service is down
// its port is free: a process of another local user that takes it learns
// nothing from them and cannot pass for the service.
const scramOnly = "require_auth=scram-sha-256"

// Password returns the postgres superuser's password, for clients that take
// it apart from a URL (PGPASSWORD). The server
// accepts nobody without it (scram-sha-256, also on its Unix socket).
func (c *Cluster) Password() string { return c.password }

// SocketDir returns the directory of the server's Unix socket (its
// temporary directory, which only the server's user may enter), or ""
// when the path would be too long for a socket and the server listens on
// TCP only. No other local user can take the socket's place while the
// server is down, as one can take a free TCP port.
func (c *Cluster) SocketDir() string { return c.socketDir }

// Dir returns the cluster's temporary directory; the data directory is
// Dir()/data.
func (c *Cluster) Dir() string { return c.dir }

// Version returns the server version, e.g. "15.18".
func (c *Cluster) Version() string { return c.version }

// initdb creates the data directory, with the superuser's password given
// in a file only the server's user can read, removed right after, and
// password authentication for every connection.
func (c *Cluster) initdb(ctx context.Context) error {
	pwfile := filepath.Join(c.dir, "initdb.pw")
	if err := writeSecret(pwfile, c.password+"\n", c.user); err != nil {
		return err
	}
	defer os.Remove(pwfile)
	return tool{
		path: filepath.Join(c.bin, "initdb"),
		args: []string{"-D", c.dataDir, "-U", "postgres", "--pwfile=" + pwfile, "--auth=scram-sha-256",
			"-E", "UTF8", "--locale=C", "--no-sync"},
		dir: c.dir, env: childEnv(), user: c.user,
		what: "initdb", detail: lastLinesOf,
	}.run(ctx)
}

// startServer launches postgres on port and waits until it is ready. It
// returns the server and the port it actually listens on (a --pg-conf
// port=N overrides -p). On failure nothing is left running.
func (c *Cluster) startServer(ctx context.Context, port int) (*server, int, error) {
	actual := port
	s, err := spawn(ctx, process{
		name: "postgres", path: filepath.Join(c.bin, "postgres"),
		args: append([]string{"-D", c.dataDir, "-p", strconv.Itoa(port)}, c.args...),
		dir:  c.dir, user: c.user, log: c.log, deathSig: syscall.SIGQUIT, binFlag: "--pg-bin",
	}, readiness{
		what: "PostgreSQL", timeout: readyTimeout,
		late: "was not ready after %s: see the server log below; on an overloaded machine, try again",
		// postmaster.pid says ready, as pg_ctl -w waits for, and the port
		// it listens on
		ready: func(s *server) (bool, error) {
			pm, err := readPostmasterPid(c.dataDir)
			if err != nil || pm.pid != s.pid || !(pm.status == "ready" || c.replica && pm.status == "standby") {
				return false, nil
			}
			if pm.port > 0 {
				actual = pm.port
			}
			return true, nil
		},
		exited: func(s *server) error { return c.exitError(s, port) },
	})
	if err != nil {
		return nil, 0, err
	}
	return s, actual, nil
}

// exitError describes a server that exited during startup.
func (c *Cluster) exitError(s *server, port int) error {
	tail := c.log.since(s.logMark)
	return exitedError(s, tail, port, "", []string{"could not bind", "Address already in use"},
		fmt.Sprintf("PostgreSQL exited during startup (%v): %s: check the --pg-conf settings and the server log below", s.err, summarize(tail)))
}

// exitedError is the startError of a process s that exited during startup,
// with tail the last lines of its log (named logName): port is in use when
// a line holds one of inUse, else msg says what went wrong.
func exitedError(s *server, tail []string, port int, logName string, inUse []string, msg string) *startError {
	e := &startError{err: s.err, tail: tail, logName: logName, msg: msg}
	for _, l := range tail {
		for _, w := range inUse {
			e.portInUse = e.portInUse || strings.Contains(l, w)
		}
	}
	if e.portInUse {
		e.msg = portInUseMsg(port)
	}
	return e
}

// portInUseMsg says that port is taken and names the fix.
func portInUseMsg(port int) string {
	return fmt.Sprintf("port %d on 127.0.0.1 is already in use: choose another port, or 0 to pick a free one", port)
}

// startError is a failed server start. Its first line says what went wrong
// and names the fix; the last lines of the server log follow, indented.
type startError struct {
	msg       string // one line, naming the fix
	err       error  // the cause, for errors.Is/As
	tail      []string
	portInUse bool
	logName   string // what the tail is from; "" = "server log"
}

func (e *startError) Error() string {
	var b strings.Builder
	b.WriteString(e.msg)
	if len(e.tail) > 0 {
		name := e.logName
		if name == "" {
			name = "server log"
		}
		b.WriteString("\n" + name + " (last lines):")
		for _, l := range e.tail {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	return b.String()
}

func (e *startError) Unwrap() error { return e.err }

func isPortInUse(err error) bool {
	var se *startError
	return errors.As(err, &se) && se.portInUse
}

// stopServer asks the postmaster for a fast shutdown and waits for it,
// killing it after stopTimeout.
func stopServer(s *server) error { return terminate(s, syscall.SIGINT) }

// stopServerNow asks the postmaster for an immediate shutdown (no
// checkpoint) and waits for it, killing it after stopTimeout.
func stopServerNow(s *server) error { return terminate(s, syscall.SIGQUIT) }

// terminate sends s sig, its shutdown signal, and waits for it to exit,
// killing it after stopTimeout.
func terminate(s *server, sig syscall.Signal) error {
	return signalStop(s, sig, stopTimeout, killServer)
}

// signalStop stops s, unless it has exited: sig, then, if s has not
// exited within d, the stop after.
func signalStop(s *server, sig syscall.Signal, d time.Duration, after func(*server) error) error {
	if waitDone(s, 0) {
		return nil
	}
	_ = syscall.Kill(s.pid, sig)
	if waitDone(s, d) {
		return nil
	}
	return after(s)
}

// waitDone reports whether s exits within d.
func waitDone(s *server, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-s.done:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}

// killServer SIGKILLs the process, its process group and its children
// (postgres backends are their own process-group leaders, so the group alone
// is not enough) and waits for the process to be reaped.
func killServer(s *server) error {
	select {
	case <-s.done:
		return nil
	default:
	}
	kids := childrenOf(s.pid)
	_ = syscall.Kill(-s.pid, syscall.SIGKILL)
	_ = syscall.Kill(s.pid, syscall.SIGKILL)
	for _, k := range kids {
		if tempdir.Alive(k.pid, k.start) {
			_ = syscall.Kill(k.pid, syscall.SIGKILL)
		}
	}
	select {
	case <-s.done:
		return nil
	case <-time.After(killTimeout):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL: kill it by hand", s.name, s.pid)
	}
}

type procRef struct {
	pid   int
	start uint64
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []procRef {
	var kids []procRef
	for _, p := range procs() {
		if st, ok := tempdir.Stat(p); ok && st.PPID == pid {
			kids = append(kids, procRef{p, st.Start})
		}
	}
	return kids
}

// procs lists the processes running, from /proc; none where it cannot
// be read.
func procs() []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// pmFile is what postmaster.pid says.
type pmFile struct {
	pid    int
	port   int
	status string // PM_STATUS: starting, stopping, ready, standby
}

// readPostmasterPid reads dataDir/postmaster.pid: line 1 is the pid, 4 the
// port, 8 the status.
func readPostmasterPid(dataDir string) (pmFile, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return pmFile{}, err
	}
	lines := strings.Split(string(b), "\n")
	var pm pmFile
	if pm.pid, err = strconv.Atoi(strings.TrimSpace(lines[0])); err != nil {
		return pmFile{}, fmt.Errorf("bad postmaster.pid in %s", dataDir)
	}
	if len(lines) > 3 {
		pm.port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	if len(lines) > 7 {
		pm.status = strings.TrimSpace(lines[7])
	}
	return pm, nil
}

// withPreload returns conf with lib in shared_preload_libraries: added to
// the user's own list when conf sets one (the last setting wins, as the
// server reads them), else set on its own before the user's settings.
func withPreload(conf []string, lib string) []string {
	last := -1
	for i, kv := range conf {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == "shared_preload_libraries" {
			last = i
		}
	}
	if last < 0 {
		return append([]string{"shared_preload_libraries=" + lib}, conf...)
	}
	_, v, _ := strings.Cut(conf[last], "=")
	var libs []string
	for _, l := range strings.Split(strings.Trim(strings.TrimSpace(v), "'\""), ",") {
		if l = strings.TrimSpace(l); l != "" {
			if l == lib {
				return conf
			}
			libs = append(libs, l)
		}
	}
	out := append([]string{}, conf...)
	out[last] = "shared_preload_libraries=" + strings.Join(append([]string{lib}, libs...), ",")
	return out
}

// validateConf checks that every entry of flag (--pg-conf) is key=value.
func validateConf(conf []string, flag string) error {
	for _, kv := range conf {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("%s %q: want key=value", flag, kv)
		}
	}
	return nil
}

// pickPortFn is pickPort; tests replace it.
var pickPortFn = pickPort

// pickPort returns a port in portMin..portMax that is free on 127.0.0.1,
// starting at a random one.
func pickPort() (int, error) {
	span := portMax - portMin + 1
	start := rand.IntN(span)
	for i := 0; i < 500 && i < span; i++ {
		p := portMin + (start+i)%span
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		_ = l.Close()
		return p, nil
	}
	return 0, fmt.Errorf("no free TCP port found in %d-%d on 127.0.0.1: free some, or pass a port", portMin, portMax)
}

// childEnv is our environment without PG* variables (PGDATA, PGPORT, ...),
// which could redirect initdb or the server, and with C messages.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_ALL=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C")
}

// quoteDirList quotes dir for a PostgreSQL directory-list setting when it
// holds a separator or a quote.
func quoteDirList(dir string) string {
	if !strings.ContainsAny(dir, ", \t\"") {
		return dir
	}
	return `"` + strings.ReplaceAll(dir, `"`, `""`) + `"`
}

// summarize returns the most telling log line: the first FATAL or PANIC
// message, else the last line.
func summarize(lines []string) string {
	for _, l := range lines {
		for _, lvl := range []string{"FATAL:", "PANIC:", "ERROR:"} {
			if i := strings.Index(l, lvl); i >= 0 {
				return strings.Join(strings.Fields(l[i:]), " ")
			}
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			return s
		}
	}
	return "no output"
}

// lastLines returns the last n non-empty lines of b.
func lastLines(b []byte, n int) []string {
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// serverLog is where the server's output goes: a file in the data
// directory, or the caller's writer through a tailWriter.
type serverLog struct {
	path string
	user *runAs
	tail *tailWriter // non-nil: log to the caller's writer
}

// open returns the writer for a new server's stdout and stderr and a
// function to call once the server has started.
func (l *serverLog) open() (io.Writer, func(), error) {
	if l.tail != nil {
		return l.tail, func() {}, nil
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		return nil, nil, fmt.Errorf("opening the server log: %w", err)
	}
	if err := l.user.chown(l.path); err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, func() { _ = f.Close() }, nil
}

// mark returns the current end of the log.
func (l *serverLog) mark() int64 {
	if l.tail != nil {
		return l.tail.mark()
	}
	fi, err := os.Stat(l.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// since returns the last logTailLines lines written after mark.
func (l *serverLog) since(mark int64) []string {
	if l.tail != nil {
		return lastLines(l.tail.since(mark), logTailLines)
	}
	f, err := os.Open(l.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size()-mark > tailKeep {
		mark = fi.Size() - tailKeep
	}
	if _, err := f.Seek(mark, io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, tailKeep))
	return lastLines(b, logTailLines)
}

// tailKeep is how many bytes of server output are kept for error messages.
const tailKeep = 64 << 10

// tailWriter passes output to w and keeps its last tailKeep bytes. It never
// fails, so a failing w cannot block the server on a full pipe.
type tailWriter struct {
	wmu    sync.Mutex
	w      io.Writer
	failed bool

	mu    sync.Mutex
	buf   []byte
	total int64
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailKeep {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailKeep:]...)
	}
	t.total += int64(len(p))
	t.mu.Unlock()

	t.wmu.Lock()
	defer t.wmu.Unlock()
	if !t.failed {
		if _, err := t.w.Write(p); err != nil {
			t.failed = true
		}
	}
	return len(p), nil
}

func (t *tailWriter) mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

func (t *tailWriter) since(mark int64) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := mark - (t.total - int64(len(t.buf)))
	if i < 0 {
		i = 0
	}
	if i > int64(len(t.buf)) {
		return nil
	}
	return append([]byte(nil), t.buf[i:]...)
}

package localdb

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

const (
	// mariaDirPrefix names every MariaDB directory under os.TempDir().
	mariaDirPrefix = "txnbench-mariadb-"
	// mariaPidName is mariadbd's pid file in its directory.
	mariaPidName = "mariadbd.pid"
	// mariaSockName is mariadbd's Unix socket in its directory.
	mariaSockName = "mysqld.sock"
	// mariaInitName is the SQL mariadbd runs at its first start, holding
	// the passwords; removed once the server is ready.
	mariaInitName = "init.sql"
	// MariaDBUser is the account a throwaway MariaDB's URL logs in as:
	// txnbench's own sessions (telemetry, faults, checks of the server).
	MariaDBUser = "root"
	// MariaDBLoadUser is the account of LoadURL: the workloads' data and
	// every client session, with privileges on MariaDBDatabase alone (no
	// FILE, no SUPER, nothing global).
	MariaDBLoadUser = "txnbench_load"
	// MariaDBDatabase is the database a throwaway MariaDB's URL names.
	MariaDBDatabase = "txnbench"
)

// MariaDBOptions configures a throwaway MariaDB.
type MariaDBOptions struct {
	// Conf holds extra server settings, each "name=value", passed as
	// --name=value after the defaults so they override them.
	Conf []string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one in 20000-32000.
	Port int
	// Log receives the server's output; nil keeps it in a file in the
	// server's directory, its last lines in startup errors.
	Log io.Writer
}

// MariaDB is a running throwaway MariaDB: Restart, Stop, Kill, Pause and
// Supervise as for a Cluster.
type MariaDB struct {
	supervised
	bin      string // mariadbd
	dataDir  string
	version  string
	args     []string // mariadbd arguments after --port
	user     *runAs
	log      *serverLog
	password string
	loadPass string // MariaDBLoadUser's
	caFile   string // the run's CA certificate, which clients verify the server against
	initFile string // run at the first start only; "" afterwards
}

// mariaVersion matches `mariadbd --version`: "mariadbd  Ver 10.11.6-MariaDB-...".
var mariaVersion = regexp.MustCompile(`Ver (\d+\.\d+\.\d+)-MariaDB`)

// findMariaDB returns the paths of mariadbd and mariadb-install-db: on
// the PATH, or where Debian puts them.
func findMariaDB() (server, install string, err error) {
	find := func(name, dir string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p
		}
		return ""
	}
	server, install = find("mariadbd", "/usr/sbin"), find("mariadb-install-db", "/usr/bin")
	if server == "" || install == "" {
		return "", "", fmt.Errorf("temp-mariadb needs mariadbd and mariadb-install-db: install MariaDB's server (apt-get install mariadb-server)")
	}
	return server, install, nil
}

// HasMariaDB reports whether a throwaway MariaDB can be started here.
func HasMariaDB() bool {
	_, _, err := findMariaDB()
	return err == nil
}

// StartMariaDB creates a temporary directory, runs mariadb-install-db in
// it and starts mariadbd on 127.0.0.1, returning once it accepts
// connections. Its only accounts are MariaDBUser at 127.0.0.1 and at
// localhost (the socket) with a new random password, MariaDBLoadUser at
// 127.0.0.1 with another, and the locked mariadb.sys: the anonymous and
// unix_socket accounts mariadb-install-db makes are dropped before the
// server takes connections. Over TCP it speaks TLS only
// (require_secure_transport), with a certificate of a CA made for this
// server (NewCA), whose key is gone once the certificate is signed; its
// URLs verify it (tls-ca), so a process that takes the port while the
// server is down learns no password and passes for nothing. Files are 0600
// in 0700 directories. On any error it leaves nothing behind.
func StartMariaDB(ctx context.Context, o MariaDBOptions) (*MariaDB, error) {
	CleanStale()
	if err := validateConf(o.Conf, "--mariadb-conf"); err != nil {
		return nil, err
	}
	if o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("port %d is out of range: use 1-65535, or 0 to pick a free one", o.Port)
	}
	bin, install, err := findMariaDB()
	if err != nil {
		return nil, err
	}
	u, err := unprivilegedUser("mariadb-install-db and mariadbd")
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", bin, err)
	}
	m := mariaVersion.FindSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("%s --version said %q: not a MariaDB server", bin, strings.TrimSpace(string(out)))
	}
	dir, err := tempDir(mariaDirPrefix)
	if err != nil {
		return nil, err
	}
	d := &MariaDB{
		supervised: supervised{name: "MariaDB", dir: dir, stop: stopMariaDB},
		bin:        bin, dataDir: filepath.Join(dir, "data"), version: string(m[1]), user: u,
		initFile: filepath.Join(dir, mariaInitName),
	}
	if d.password, err = NewPassword(); err != nil {
		return nil, err
	}
	if d.loadPass, err = NewPassword(); err != nil {
		return nil, err
	}
	d.start = d.startServer
	ok := false
	defer func() {
		if !ok {
			_ = d.Stop()
		}
	}()
	if err := claimDir(dir, u, "mariadbd"); err != nil {
		return nil, err
	}
	if len(d.socketPath()) > maxSocketPath {
		return nil, fmt.Errorf("temporary directory %s is too long for a Unix socket: set TMPDIR to a shorter directory, e.g. /tmp", dir)
	}
	// Its temporary files (a multi-table UPDATE's, a sort's, the
	// bootstrap's) stay in its own directory too, not in the shared /tmp,
	// where another program's clean-up removed one under a running
	// statement, nor in a $TMPDIR the server's user may not write.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, err
	}
	if err := u.chown(tmp); err != nil {
		return nil, err
	}
	if err := d.installDB(ctx, install, tmp); err != nil {
		return nil, err
	}
	if err := writeSecret(d.initFile, d.initSQL(), u); err != nil {
		return nil, err
	}
	ca, err := NewCA()
	if err != nil {
		return nil, err
	}
	tlsf, err := ca.issue(dir, u)
	if err != nil {
		return nil, err
	}
	d.caFile = tlsf.ca
	d.log = newServerLog(filepath.Join(dir, logFileName), u, o.Log)
	d.args = []string{
		"--datadir=" + d.dataDir, "--socket=" + d.socketPath(), "--pid-file=" + filepath.Join(dir, mariaPidName), "--tmpdir=" + tmp,
		"--bind-address=127.0.0.1", "--skip-name-resolve", "--performance-schema=ON", // its log goes to stderr: the server log
		"--ssl-ca=" + tlsf.ca, "--ssl-cert=" + tlsf.cert, "--ssl-key=" + tlsf.key, "--require-secure-transport=ON",
	}
	for _, kv := range o.Conf {
		k, v, _ := strings.Cut(kv, "=")
		d.args = append(d.args, "--"+strings.TrimSpace(k)+"="+strings.TrimSpace(v))
	}
	if err := d.firstStart(ctx, o.Port); err != nil {
		return nil, err
	}
	ok = true
	return d, nil
}

// mariaEnv makes the server's files 0600 and its directories 0700.
var mariaEnv = []string{"UMASK=0600", "UMASK_DIR=0700"}

// installDB creates the data directory and the system tables, the
// bootstrap's temporary files in tmp.
func (d *MariaDB) installDB(ctx context.Context, install, tmp string) error {
	// It runs mariadbd --bootstrap as its own child, killed with it.
	err := tool{
		path: install,
		args: []string{"--no-defaults", "--datadir=" + d.dataDir,
			"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve", "--tmpdir=" + tmp},
		dir: d.dir, env: append(childEnv(), mariaEnv...), user: d.user,
		what: "mariadb-install-db", detail: installError,
	}.run(ctx)
	if err != nil {
		return err
	}
	// It writes some files without the server's UMASK: close them too.
	return filepath.WalkDir(d.dataDir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		if err := os.Chmod(path, 0o600); err != nil {
			return fmt.Errorf("closing %s to other users: %w", path, err)
		}
		return nil
	})
}

// initSQL drops every account mariadb-install-db made but the locked
// mariadb.sys (root without a password over TCP, root and the server's
// user by unix_socket, the anonymous ones) and their proxy grants, then
// makes MariaDBUser with the password, the database, and MariaDBLoadUser
// with every privilege on the database and none beyond it. mariadbd reads
// its init file one statement per line.
func (d *MariaDB) initSQL() string {
	var b strings.Builder
	b.WriteString("DELETE FROM mysql.global_priv WHERE User <> 'mariadb.sys';\n")
	b.WriteString("DELETE FROM mysql.proxies_priv;\n")
	b.WriteString("FLUSH PRIVILEGES;\n")
	for _, host := range []string{"127.0.0.1", "localhost"} {
		fmt.Fprintf(&b, "CREATE USER '%s'@'%s' IDENTIFIED BY '%s';\n", MariaDBUser, host, d.password)
		fmt.Fprintf(&b, "GRANT ALL ON *.* TO '%s'@'%s' WITH GRANT OPTION;\n", MariaDBUser, host)
	}
	fmt.Fprintf(&b, "CREATE DATABASE %s;\n", MariaDBDatabase)
	fmt.Fprintf(&b, "CREATE USER '%s'@'127.0.0.1' IDENTIFIED BY '%s';\n", MariaDBLoadUser, d.loadPass)
	fmt.Fprintf(&b, "GRANT ALL ON %s.* TO '%s'@'127.0.0.1';\n", MariaDBDatabase, MariaDBLoadUser)
	return b.String()
}

func (d *MariaDB) socketPath() string { return filepath.Join(d.dir, mariaSockName) }

// startServer launches mariadbd on port and waits until it is ready for
// connections. The first start runs the init file, removed once ready.
func (d *MariaDB) startServer(ctx context.Context, port int) (*server, int, error) {
	args := append([]string{"--no-defaults", "--port=" + strconv.Itoa(port)}, d.args...)
	if d.initFile != "" {
		args = append(args, "--init-file="+d.initFile)
	}
	s, err := spawn(ctx, process{
		name: "mariadbd", path: d.bin, args: args, env: mariaEnv,
		dir: d.dir, user: d.user, log: d.log, deathSig: syscall.SIGTERM, binFlag: "the mariadb-server installation",
	}, readiness{
		what: "MariaDB", timeout: readyTimeout,
		late: "was not ready after %s: see the server log below; on an overloaded machine, try again",
		ready: func(s *server) (bool, error) {
			for _, l := range d.log.since(s.logMark) {
				if strings.Contains(l, "ready for connections") {
					return true, nil
				}
			}
			return false, nil
		},
		exited: func(s *server) error {
			tail := d.log.since(s.logMark)
			return exitedError(s, tail, port, "", []string{"Address already in use", "Do you already have another server running"},
				fmt.Sprintf("MariaDB exited during startup (%v): %s: check the --mariadb-conf settings and the server log below", s.err, summarizeMaria(tail)))
		},
	})
	if err != nil {
		return nil, 0, err
	}
	if d.initFile != "" {
		_ = os.Remove(d.initFile)
		d.initFile = ""
	}
	return s, port, nil
}

// installError is what mariadb-install-db's output says went wrong: the
// first [ERROR] line, not its closing advice to report bugs.
func installError(out []byte) string { return summarizeMaria(lastLines(out, 200)) }

// summarizeMaria returns the first [ERROR] line of mariadbd's log, else
// the last line.
func summarizeMaria(lines []string) string {
	for _, l := range lines {
		if i := strings.Index(l, "[ERROR]"); i >= 0 {
			return strings.Join(strings.Fields(l[i:]), " ")
		}
	}
	return summarize(lines)
}

// stopMariaDB asks mariadbd for a normal shutdown (SIGTERM) and waits for
// it, killing it after stopTimeout.
func stopMariaDB(s *server) error { return terminate(s, syscall.SIGTERM) }

// URL returns the mysql:// URL of MariaDBUser over TCP, with its password
// (mask it wherever it is shown), verifying the server against the run's
// CA.
func (d *MariaDB) URL() string { return d.urlOf(MariaDBUser, d.password) }

// LoadURL is URL as MariaDBLoadUser.
func (d *MariaDB) LoadURL() string { return d.urlOf(MariaDBLoadUser, d.loadPass) }

func (d *MariaDB) urlOf(user, password string) string {
	// A query value may hold slashes: the path stays readable where the
	// URL is shown.
	ca := strings.ReplaceAll(url.QueryEscape(d.caFile), "%2F", "/")
	return fmt.Sprintf("mysql://%s:%s@127.0.0.1:%d/%s?tls-ca=%s", user, password, d.Port(), MariaDBDatabase, ca)
}

// CAFile is the run's CA certificate, which the server's certificate is
// signed by.
func (d *MariaDB) CAFile() string { return d.caFile }

// Password returns MariaDBUser's password.
func (d *MariaDB) Password() string { return d.password }

// SocketPath returns the server's Unix socket.
func (d *MariaDB) SocketPath() string { return d.socketPath() }

// Dir returns the server's temporary directory; its data directory is
// Dir()/data.
func (d *MariaDB) Dir() string { return d.dir }

// Version returns the server version, e.g. "10.11.6".
func (d *MariaDB) Version() string { return d.version }

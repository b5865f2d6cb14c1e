package localdb

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/txnbench/txnbench/internal/pooler"
)

const (
	// haproxyConfName, haproxyPidName, haproxySockName and haproxyLogName
	// are the files in an HAProxy directory. HAProxy in the foreground
	// writes no pid file: txnbench writes it, for CleanStale.
	haproxyConfName = "haproxy.cfg"
	haproxyPidName  = "haproxy.pid"
	haproxySockName = "stats.sock"
	haproxyLogName  = "haproxy.log"

	haproxyReadyTimeout = 30 * time.Second
	// haproxyStopTimeout is how long Stop waits after SIGTERM (HAProxy's
	// hard stop: connections are closed at once) before SIGKILL.
	haproxyStopTimeout = 5 * time.Second

	// debianHAProxy is where Debian and Ubuntu install haproxy.
	debianHAProxy = "/usr/sbin/haproxy"

	// HAProxyBalance and HAProxyCheck are how the throwaway HAProxy
	// balances its poolers and checks their health: a PostgreSQL startup
	// packet every second, answered within 2 s (a TCP connect alone is
	// accepted by the kernel of a pooler that is stopped or stuck); down
	// after 2 failed checks, its sessions then cut so that their clients
	// reconnect through another; up again after 2 good ones.
	HAProxyBalance = "leastconn"
	HAProxyCheck   = "pgsql-check " + haproxyServerCheck + ", timeout check " + haproxyCheckTimeout
)

// haproxyServerCheck and haproxyCheckTimeout are HAProxyCheck's settings
// in the configuration.
const (
	haproxyServerCheck  = "inter 1s fall 2 rise 2 on-marked-down shutdown-sessions"
	haproxyCheckTimeout = "2s"
)

// errHAProxyNotFound is the one-line error FindHAProxy returns when
// discovery fails.
var errHAProxyNotFound = errors.New("HAProxy not found: install it (Debian: apt-get install haproxy) or put haproxy on PATH")

// HAProxyOptions configures a throwaway HAProxy balancing TCP connections
// over servers on 127.0.0.1 (a fleet of poolers).
type HAProxyOptions struct {
	// Bin is the haproxy binary; "" discovers it with FindHAProxy.
	Bin string
	// Servers are the ports of what it balances, on 127.0.0.1; the i-th
	// is named "pooler" followed by i+1 in its statistics.
	Servers []int
	// MaxConn is the most client connections it takes at once; 0 means
	// 1000.
	MaxConn int
	// Port is the TCP port on 127.0.0.1; 0 picks a free one in 20000-32000.
	Port int
	// CheckUser is the user name of the health check's startup packet;
	// "" means "txnbench".
	CheckUser string
	// Log receives HAProxy's output; when nil it is kept in a file in its
	// directory and the last lines are included in startup errors.
	Log io.Writer
}

// HAProxy is a running throwaway HAProxy in TCP mode: one address in
// front of several servers, connections balanced leastconn, each server's
// health checked as HAProxyCheck says (a server that stops answering is
// down within about 6 s and its sessions cut, up again after 2 good
// checks), a connection refused by one server retried on another. Its
// methods are safe for concurrent use; Restart, Kill, Supervise and Stop
// are a supervised process's. Its statistics are read from a stats socket
// in its directory.
type HAProxy struct {
	supervised
	bin     string
	version string
	o       HAProxyOptions
	user    *runAs
	log     *serverLog
}

// FindHAProxy returns the path of the haproxy binary: on PATH, else
// /usr/sbin/haproxy (often not on a normal user's PATH).
func FindHAProxy(bin string) (string, error) {
	if bin != "" {
		if !isExecutable(bin) {
			return "", fmt.Errorf("no executable haproxy at %s: install it (Debian: apt-get install haproxy)", bin)
		}
		return bin, nil
	}
	if path := onPathOrSbin("haproxy", debianHAProxy); path != "" {
		return path, nil
	}
	return "", errHAProxyNotFound
}

var haproxyVersionRE = regexp.MustCompile(`(?i)HA-?Proxy version (\d+\.\d+(?:\.\d+)?)`)

// haproxyVersion runs `haproxy -v` and returns e.g. "2.6.12".
func haproxyVersion(bin string) (string, error) {
	return toolVersion(bin, "-v", haproxyVersionRE.FindStringSubmatch, "an HAProxy", "check the haproxy installation")
}

// toolVersion runs bin with flag and returns the version find finds in
// its output (the first submatch); its errors say it is not what of a
// version, and the fix.
func toolVersion(bin, flag string, find func(string) []string, what, fix string) (string, error) {
	out, err := exec.Command(bin, flag).Output()
	if err != nil {
		return "", fmt.Errorf("running %s %s: %w: %s", bin, flag, err, fix)
	}
	m := find(string(out))
	if m == nil {
		return "", fmt.Errorf("%s %s printed %q, not %s version: %s", bin, flag, summarize(lastLines(out, 1)), what, fix)
	}
	return m[1], nil
}

// StartHAProxy writes a configuration into a new temporary directory and
// starts haproxy on 127.0.0.1 in front of o.Servers, returning once it
// accepts TCP connections. On any error it leaves nothing behind. Like
// PgBouncer it runs as the clusters' unprivileged user when txnbench runs
// as root, and is started with Pdeathsig=SIGKILL.
func StartHAProxy(ctx context.Context, o HAProxyOptions) (*HAProxy, error) {
	CleanStale()
	if len(o.Servers) == 0 {
		return nil, errors.New("HAProxy needs at least one server to balance")
	}
	if o.MaxConn <= 0 {
		o.MaxConn = pooler.DefaultMaxClientConn
	}
	if o.CheckUser == "" {
		o.CheckUser = "txnbench"
	}
	if strings.ContainsFunc(o.CheckUser, isCtlOrSpace) {
		return nil, fmt.Errorf("HAProxy cannot check its servers as user %q: it holds a space or control character: use another user", o.CheckUser)
	}
	if o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("HAProxy port %d is out of range: use 1-65535, or 0 to pick a free one", o.Port)
	}
	bin, err := FindHAProxy(o.Bin)
	if err != nil {
		return nil, err
	}
	h := &HAProxy{bin: bin, o: o}
	err = h.startPooler(ctx, poolerPrep{
		name: "HAProxy", proc: "haproxy", bin: bin, version: haproxyVersion,
		// A client connection and a server connection each, and a reserve.
		nofile: 2*uint64(o.MaxConn) + bouncerFdReserve, maxConn: o.MaxConn,
		dirPrefix: haproxyDirPrefix,
		checkDir: func(dir string) error {
			if strings.ContainsFunc(dir, isCtlOrSpace) {
				return fmt.Errorf("temporary directory %q holds a space or control character, which an HAProxy configuration cannot: set TMPDIR to a plain path", dir)
			}
			if len(h.socketPath()) > maxSocketPath {
				return fmt.Errorf("temporary directory %s is too long for HAProxy's stats socket: set TMPDIR to a short path such as /tmp", dir)
			}
			return nil
		},
		setup: func(u *runAs, version string) error {
			h.user, h.version = u, version
			h.log = newServerLog(filepath.Join(h.dir, haproxyLogName), u, o.Log)
			return nil
		},
		port: o.Port,
	}, h.startProcess, h.stopProcess)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Version returns the HAProxy version, e.g. "2.6.12".
func (h *HAProxy) Version() string { return h.version }

// Dir returns HAProxy's temporary directory (configuration, stats socket,
// log).
func (h *HAProxy) Dir() string { return h.dir }

func (h *HAProxy) socketPath() string { return filepath.Join(h.dir, haproxySockName) }

// config returns haproxy.cfg for listening on port.
func (h *HAProxy) config(port int) string {
	var c strings.Builder
	c.WriteString("# Written by txnbench for a throwaway HAProxy; removed with its directory.\n")
	fmt.Fprintf(&c, "global\n    maxconn %d\n    nbthread 1\n", h.o.MaxConn)
	fmt.Fprintf(&c, "    stats socket %s mode 600 level admin\n\n", h.socketPath())
	c.WriteString("defaults\n    mode tcp\n")
	// Sessions may sit idle between a client's transactions for long.
	c.WriteString("    timeout connect 1s\n    timeout client 24h\n    timeout server 24h\n")
	// A server that refuses a connection (a dead pooler not yet marked
	// down) costs a retry on another one, not the client's connection.
	c.WriteString("    retries 3\n    option redispatch 1\n\n")
	fmt.Fprintf(&c, "frontend clients\n    bind 127.0.0.1:%d\n    default_backend poolers\n\n", port)
	fmt.Fprintf(&c, "backend poolers\n    balance %s\n", HAProxyBalance)
	// The check sends a startup packet and wants PostgreSQL's answer (an
	// authentication request): a TCP connect alone is accepted by the
	// kernel of a pooler that is stopped or stuck.
	fmt.Fprintf(&c, "    option pgsql-check user %s\n    timeout check %s\n", h.o.CheckUser, haproxyCheckTimeout)
	for i, p := range h.o.Servers {
		fmt.Fprintf(&c, "    server pooler%d 127.0.0.1:%d check %s\n", i+1, p, haproxyServerCheck)
	}
	return c.String()
}

// startProcess writes the configuration for port, launches haproxy in the
// foreground and waits until it accepts connections.
func (h *HAProxy) startProcess(ctx context.Context, port int) (*server, error) {
	conf := filepath.Join(h.dir, haproxyConfName)
	if err := writeSecret(conf, h.config(port), h.user); err != nil {
		return nil, err
	}
	_ = os.Remove(h.socketPath())
	s, err := spawn(ctx, process{
		name: "haproxy", path: h.bin, args: []string{"-db", "-f", conf},
		dir: h.dir, user: h.user, log: h.log, binFlag: "the haproxy installation",
		deathSig: syscall.SIGKILL,
	}, readiness{
		what: "HAProxy", timeout: haproxyReadyTimeout, logName: "HAProxy log",
		late: "was not accepting connections after %s: see its log below; on an overloaded machine, try again",
		ready: func(s *server) (bool, error) {
			if !accepting(s.pid, port) {
				return false, nil
			}
			_, err := os.Stat(h.socketPath())
			return err == nil, nil
		},
		exited: func(s *server) error {
			tail := h.log.since(s.logMark)
			return exitedError(s, tail, port, "HAProxy log", []string{"Address already in use", "cannot bind socket"},
				fmt.Sprintf("HAProxy exited during startup (%v): %s: see its log below", s.err, summarize(tail)))
		},
	})
	if err != nil {
		return nil, err
	}
	// For CleanStale, should txnbench die without stopping it.
	if err := os.WriteFile(filepath.Join(h.dir, haproxyPidName), []byte(strconv.Itoa(s.pid)+"\n"), 0o644); err != nil {
		_ = killServer(s)
		return nil, fmt.Errorf("writing HAProxy's pid file: %w", err)
	}
	return s, nil
}

// stopProcess stops haproxy s: SIGTERM (a hard stop), then SIGKILL.
func (h *HAProxy) stopProcess(s *server) error {
	return signalStop(s, syscall.SIGTERM, haproxyStopTimeout, killServer)
}

// Stats returns HAProxy's statistics of each balanced server (`show stat`
// on its stats socket, columns by their CSV names: svname, status, stot,
// econ, wredis, chkfail, chkdown, downtime, ...).
func (h *HAProxy) Stats(ctx context.Context) ([]map[string]string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", h.socketPath())
	if err != nil {
		return nil, fmt.Errorf("HAProxy stats socket: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	} else {
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	}
	if _, err := io.WriteString(conn, "show stat\n"); err != nil {
		return nil, fmt.Errorf("HAProxy stats socket: %w", err)
	}
	return parseStat(bufio.NewReader(conn))
}

// parseStat reads `show stat` CSV ("# pxname,svname,..." then a row per
// proxy and server) and returns the rows of the balanced servers.
func parseStat(r io.Reader) ([]map[string]string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("HAProxy statistics: %w", err)
	}
	if len(recs) == 0 || len(recs[0]) == 0 || !strings.HasPrefix(recs[0][0], "# ") {
		return nil, errors.New("HAProxy statistics: no header line")
	}
	head := recs[0]
	head[0] = strings.TrimPrefix(head[0], "# ")
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, v := range rec {
			if i < len(head) && head[i] != "" {
				row[head[i]] = v
			}
		}
		if row["svname"] == "FRONTEND" || row["svname"] == "BACKEND" || row["pxname"] != "poolers" {
			continue
		}
		rows = append(rows, row)
	}
	return rows, nil
}

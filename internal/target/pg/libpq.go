package pg

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/txnbench/txnbench/internal/errclass"
)

// LibpqResultMessage is a server error as libpq's PQresultErrorMessage
// words it at its default verbosity: "SEVERITY:  message", the LINE and
// caret lines locating the error in query, then DETAIL, HINT, QUERY and
// CONTEXT lines, each line ended by a newline. An error the server did not
// send is its text plus a newline.
func LibpqResultMessage(err error, query string) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err.Error() + "\n"
	}
	var b strings.Builder
	b.WriteString(pe.Severity + ":  " + pe.Message)
	text, pos := "", 0
	switch {
	case pe.Position > 0 && query != "":
		text, pos = query, int(pe.Position)
	case pe.Position > 0:
		fmt.Fprintf(&b, " at character %d", pe.Position)
	case pe.InternalPosition > 0 && pe.InternalQuery != "":
		text, pos = pe.InternalQuery, int(pe.InternalPosition)
	case pe.InternalPosition > 0:
		fmt.Fprintf(&b, " at character %d", pe.InternalPosition)
	}
	b.WriteByte('\n')
	if pos > 0 {
		errorPosition(&b, text, pos)
	}
	for _, f := range [][2]string{{"DETAIL", pe.Detail}, {"HINT", pe.Hint}, {"QUERY", pe.InternalQuery}, {"CONTEXT", pe.Where}} {
		if f[1] != "" {
			b.WriteString(f[0] + ":  " + f[1] + "\n")
		}
	}
	return b.String()
}

// errorPosition writes libpq's "LINE n: ..." line and the caret under the
// character loc (1-based) of query, cutting a line longer than 60
// characters around it as libpq's reportErrorPosition does. Characters
// count one column each.
func errorPosition(b *strings.Builder, query string, loc int) {
	const displaySize, minRightCut = 60, 10
	q := []rune(query)
	loc--
	line, beg, end := 1, 0, -1
	cno := 0
	for ; cno < len(q); cno++ {
		switch ch := q[cno]; {
		case ch == '\t':
			q[cno] = ' '
		case ch == '\r' || ch == '\n':
			if cno < loc {
				if ch == '\r' || cno == 0 || q[cno-1] != '\r' {
					line++
				}
				beg = cno + 1
			} else {
				end = cno
			}
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		end = cno
	}
	if loc > cno {
		return
	}
	begTrunc, endTrunc := false, false
	if end-beg > displaySize {
		if beg+displaySize >= loc+minRightCut {
			for end-beg > displaySize {
				end--
			}
			endTrunc = true
		} else {
			for loc+minRightCut < end {
				end--
				endTrunc = true
			}
			for end-beg > displaySize {
				beg++
				begTrunc = true
			}
		}
	}
	prefix := "LINE " + strconv.Itoa(line) + ": "
	if begTrunc {
		prefix += "..."
	}
	b.WriteString(prefix + string(q[beg:end]))
	if endTrunc {
		b.WriteString("...")
	}
	b.WriteString("\n" + strings.Repeat(" ", len(prefix)+loc-beg) + "^\n")
}

// LibpqConnectMessage is a failure to connect as libpq's PQerrorMessage
// words it ("connection to server at ... failed: FATAL:  ..."), without
// the last newline; ok is false when err is not a failure to connect.
func LibpqConnectMessage(err error) (msg string, ok bool) {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) || ce.Config == nil {
		return "", false
	}
	host, port := ce.Config.Host, ce.Config.Port
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		// getaddrinfo's words (gai_strerror), without libpq's prefix
		why := "Temporary failure in name resolution"
		if dnsErr.IsNotFound {
			why = "Name or service not known"
		}
		return fmt.Sprintf("could not translate host name \"%s\" to address: %s", host, why), true
	}
	var where string
	local := strings.HasPrefix(host, "/")
	switch {
	case local:
		where = fmt.Sprintf("connection to server on socket \"%s/.s.PGSQL.%d\" failed: ", host, port)
	case net.ParseIP(host) != nil:
		where = fmt.Sprintf("connection to server at \"%s\", port %d failed: ", host, port)
	default:
		addr := host
		if ips, lerr := net.LookupHost(host); lerr == nil && len(ips) > 0 {
			addr = ips[0]
		}
		where = fmt.Sprintf("connection to server at \"%s\" (%s), port %d failed: ", host, addr, port)
	}
	var pe *pgconn.PgError
	var errno syscall.Errno
	switch {
	case errors.As(err, &pe):
		return where + strings.TrimSuffix(LibpqResultMessage(pe, ""), "\n"), true
	case errors.As(err, &errno):
		// strerror's words, with libpq's hint for a server not listening
		text := errno.Error()
		text = strings.ToUpper(text[:1]) + text[1:]
		if errno == syscall.ECONNREFUSED || errno == syscall.ENOENT {
			if local {
				text += "\n\tIs the server running locally and accepting connections on that socket?"
			} else {
				text += "\n\tIs the server running on that host and accepting TCP/IP connections?"
			}
		}
		return where + text, true
	case errors.Is(err, os.ErrDeadlineExceeded):
		return where + "timeout expired", true
	}
	return where + errclass.OneLine(errors.Unwrap(ce).Error()), true
}

// LibpqConnInfo is what libpq's PQhost, PQport and PQdb say of a
// connection to url; empty when url is not a PostgreSQL one.
func LibpqConnInfo(url string) (host, port, db string) {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return "", "", ""
	}
	return cfg.Host, strconv.Itoa(int(cfg.Port)), cfg.Database
}

// ConnectMessage is LibpqConnectMessage (target.ConnectWorder).
func (driver) ConnectMessage(err error) (string, bool) { return LibpqConnectMessage(err) }

// ConnInfo is LibpqConnInfo (target.ConnInfoer).
func (driver) ConnInfo(url string) (host, port, db string) { return LibpqConnInfo(url) }

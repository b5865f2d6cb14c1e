package errclass

import "strings"

// Class is a stable name for a kind of error, used to count errors and to
// decide whether an op is retried.
type Class string

// The error classes. Retryable ones are Serialization, Deadlock and Busy.
const (
	None               Class = ""
	ConnectRefused     Class = "connect_refused"
	TooManyConnections Class = "too_many_connections"
	Auth               Class = "auth"
	Timeout            Class = "timeout"
	Serialization      Class = "serialization"
	Deadlock           Class = "deadlock"
	Busy               Class = "busy" // SQLite: the write lock stayed taken
	AdminShutdown      Class = "admin_shutdown"
	ConnectionLost     Class = "connection_lost"
	Canceled           Class = "canceled" // the run was stopping; not an error
	// Errors that persist until someone fixes the server or the schema:
	// they do not go away by retrying, so a client that meets one again
	// and again backs off.
	DiskFull              Class = "disk_full"              // SQLSTATE 53100
	ReadOnly              Class = "read_only"              // 25006: a read-only transaction or server
	InsufficientResources Class = "insufficient_resources" // the rest of SQLSTATE class 53: out of memory, ...
	UndefinedObject       Class = "undefined_object"       // a missing table, column, function or object
	Permission            Class = "permission"             // 42501: insufficient privilege
	Other                 Class = "other"
)

// All lists every error class in a stable order for reports.
var All = []Class{
	ConnectRefused, TooManyConnections, Auth, Timeout,
	Serialization, Deadlock, Busy, AdminShutdown,
	ConnectionLost, DiskFull, ReadOnly, InsufficientResources,
	UndefinedObject, Permission, Other,
}

// Retryable reports whether an op that failed with this class should be
// tried again on the same connection.
func (c Class) Retryable() bool {
	return c == Serialization || c == Deadlock || c == Busy
}

// FirstLine is err's message up to its first newline: the one line a note
// keeps of a server's multi-line error (its DETAIL and HINT dropped).
func FirstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// OneLine joins a multi-line message (pgx reports one line per address it
// tried) into one, dropping repeated lines.
func OneLine(s string) string {
	var parts []string
	seen := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !seen[l] {
			seen[l] = true
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

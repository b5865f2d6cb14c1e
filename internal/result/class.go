package result

// Class is a stable name for a kind of error, used to count errors and to
// decide whether an op is retried.
type Class string

// The error classes. Retryable ones are Serialization, Deadlock and Busy.
const (
	ClassNone               Class = ""
	ClassConnectRefused     Class = "connect_refused"
	ClassTooManyConnections Class = "too_many_connections"
	ClassAuth               Class = "auth"
	ClassTimeout            Class = "timeout"
	ClassSerialization      Class = "serialization"
	ClassDeadlock           Class = "deadlock"
	ClassBusy               Class = "busy" // SQLite: the write lock stayed taken
	ClassAdminShutdown      Class = "admin_shutdown"
	ClassConnectionLost     Class = "connection_lost"
	ClassCanceled           Class = "canceled" // the run was stopping; not an error
	// Errors that persist until someone fixes the server or the schema:
	// they do not go away by retrying, so a client that meets one again
	// and again backs off.
	ClassDiskFull              Class = "disk_full"              // SQLSTATE 53100
	ClassReadOnly              Class = "read_only"              // 25006: a read-only transaction or server
	ClassInsufficientResources Class = "insufficient_resources" // the rest of SQLSTATE class 53: out of memory, ...
	ClassUndefinedObject       Class = "undefined_object"       // a missing table, column, function or object
	ClassPermission            Class = "permission"             // 42501: insufficient privilege
	ClassOther                 Class = "other"
)

// Classes lists every error class in a stable order for reports.
var Classes = []Class{
	ClassConnectRefused, ClassTooManyConnections, ClassAuth, ClassTimeout,
	ClassSerialization, ClassDeadlock, ClassBusy, ClassAdminShutdown,
	ClassConnectionLost, ClassDiskFull, ClassReadOnly, ClassInsufficientResources,
	ClassUndefinedObject, ClassPermission, ClassOther,
}

// Retryable reports whether an op that failed with this class should be
// tried again on the same connection.
func (c Class) Retryable() bool {
	return c == ClassSerialization || c == ClassDeadlock || c == ClassBusy
}

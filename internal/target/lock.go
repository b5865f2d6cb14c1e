package target

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"
)

// lockPoll is how often a waiting LockSchema tries the lock again.
const lockPoll = 100 * time.Millisecond

// SchemaLockKey is the advisory lock key that serialises creating the
// schema of the workload named name, the same in every txnbench.
func SchemaLockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("txnbench schema " + name))
	return int64(h.Sum64())
}

// FileTarget is a Target whose database is one local file (SQLite).
type FileTarget interface {
	Target
	// File is the database file's path.
	File() string
}

// LockSchema takes the lock that serialises creating the schema of the
// workload named name among txnbench processes on t, trying again until
// it gets it or ctx ends; waiting is called once, naming the lock, when
// another holder makes it wait. On a server with advisory locks it is
// one held by c's session (c must reach the server directly: a
// transaction pooler does not keep session state); on a FileTarget it is an
// exclusive lock on the database file beside SQLite's own. Elsewhere
// there is no such lock and LockSchema does nothing. unlock releases it.
func LockSchema(ctx context.Context, t Target, c Conn, name string, waiting func(lock string)) (unlock func(), err error) {
	var try func() (bool, error)
	var what string
	var release func()
	switch {
	case t.Dialect().Caps.AdvisoryLocks:
		key := SchemaLockKey(name)
		what = fmt.Sprintf("advisory lock %d", key)
		try = func() (bool, error) {
			rows, err := c.Query(ctx, "SELECT pg_try_advisory_lock($1)", key)
			if err != nil {
				return false, err
			}
			defer rows.Close()
			var got bool
			for rows.Next() {
				if err := rows.Scan(&got); err != nil {
					return false, err
				}
			}
			return got, rows.Err()
		}
		release = func() {
			// A session that ends releases its locks too: after an error
			// here the caller's Close does it.
			c.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", key)
		}
	default:
		ft, ok := t.(FileTarget)
		if !ok {
			return func() {}, nil
		}
		path := ft.File()
		f, err := openFileLock(path)
		if err != nil {
			return nil, fmt.Errorf("locking %s for creating the %s schema: %w", path, name, err)
		}
		if f == nil {
			return func() {}, nil
		}
		what = "lock on " + path
		try = f.try
		release = f.release
	}
	for warned := false; ; {
		got, err := try()
		if err != nil {
			release()
			return nil, fmt.Errorf("taking the %s for creating the %s schema: %w", what, name, err)
		}
		if got {
			return release, nil
		}
		if !warned {
			waiting(what)
			warned = true
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			release()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

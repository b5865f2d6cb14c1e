//go:build !unix

package target

// fileLock: without flock(2) SQLite files are not locked for schema
// creation; openFileLock returns nil and LockSchema does nothing.
type fileLock struct{}

func openFileLock(string) (*fileLock, error) { return nil, nil }
func (*fileLock) try() (bool, error)         { return true, nil }
func (*fileLock) release()                   {}

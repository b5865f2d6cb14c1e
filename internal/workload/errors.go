package workload

import "errors"

// ErrUnsupported marks an option the database cannot honour (a wake-up by
// NOTIFY on a database without LISTEN/NOTIFY); the command line treats it
// as a usage error (exit status 2).
var ErrUnsupported = errors.New("unsupported option")

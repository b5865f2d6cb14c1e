// Package drivers registers every database driver with target: import it
// for its side effect where databases are opened (the CLI, and tests of
// packages that open them).
package drivers

import (
	_ "github.com/txnbench/txnbench/internal/target/mysql"  // mysql:// URLs
	_ "github.com/txnbench/txnbench/internal/target/pg"     // postgres:// URLs
	_ "github.com/txnbench/txnbench/internal/target/sqlite" // sqlite:, sqlite:PATH
)

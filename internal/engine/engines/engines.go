// Package engines links every engine (and, through target/drivers, every
// driver): the binary and the tests that open databases import it, one
// blank import per engine.
package engines

import (
	_ "github.com/txnbench/txnbench/internal/engine/mariadb"
	_ "github.com/txnbench/txnbench/internal/engine/postgres"
	_ "github.com/txnbench/txnbench/internal/engine/sqlite"
	_ "github.com/txnbench/txnbench/internal/target/drivers"
)

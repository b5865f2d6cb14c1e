// Command txnbench runs realistic transactional workloads against SQLite
// and PostgreSQL and reports numbers you can trust. See README.md.
package main

import (
	"os"

	"github.com/txnbench/txnbench/internal/cli"
)

func main() {
	os.Exit(cli.Process(os.Args[1:], os.Stdout, os.Stderr))
}

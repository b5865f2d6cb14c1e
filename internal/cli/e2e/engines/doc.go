// Package engines holds the end-to-end tests of the engines and standard workloads: MariaDB, TPC-C, YCSB and sysbench-style builtins, the workflow workload, and loaded data.
// Its tests run the real command (see internal/cli/clitest); the package
// has no code of its own.
package engines

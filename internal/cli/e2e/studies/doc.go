// Package studies holds the end-to-end tests of studies, suites and capacity searches: cells on one shared cluster, PostgreSQL versions, config files, a non-superuser, suite tables.
// Its tests run the real command (see internal/cli/clitest); the package
// has no code of its own.
package studies

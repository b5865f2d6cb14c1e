// Package poolers holds the end-to-end tests of connection paths: fleets of PgBouncers behind HAProxy, --network shaping, --cpus, and libpq's environment, service file and password file.
// Its tests run the real command (see internal/cli/clitest); the package
// has no code of its own.
package poolers

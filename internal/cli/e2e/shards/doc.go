// Package shards holds the end-to-end tests of one run split across processes (--shards, the container's entry point and the Kubernetes manifests) and of concurrent runs on one database.
// Its tests run the real command (see internal/cli/clitest); the package
// has no code of its own.
package shards

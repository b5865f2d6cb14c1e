package clitest

import (
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// LoadResult is the result saved at path (a run's --json), failing the
// test if it cannot be loaded.
func LoadResult(t testing.TB, path string) *result.Result {
	t.Helper()
	r, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Package sqlite is the SQLite engine's server side, which is none: an
// embedded database has no throwaway server, no server counters and no
// sessions to end. Its driver is internal/target/sqlite.
package sqlite

import (
	"context"
	"errors"

	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/telemetry"
)

func init() { engine.Register(sqlite{}) }

type sqlite struct{}

func (sqlite) Name() string               { return "sqlite" }
func (sqlite) Flags() engine.Flags        { return engine.Flags{} }
func (sqlite) Caps() engine.Caps          { return engine.Caps{} }
func (sqlite) CheckBin(string) error      { return nil }
func (sqlite) Sampler() telemetry.Sampler { return nil }

func (sqlite) Start(context.Context, target.Spec, engine.StartOptions) (*engine.Server, error) {
	return nil, engine.ErrNoServer
}

func (sqlite) TerminateSessions(context.Context, engine.Sessions) (int64, error) {
	return 0, errors.New("SQLite has no server sessions to end")
}

package job

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/txnbench/txnbench/internal/engine"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/telemetry"
)

// scratchKind is the --db form of the engine this test adds, registered
// as an engine package would register its own.
var scratchKind = target.RegisterThrowaway("temp-scratch", "scratch")

// scratch is a throwaway engine whose "server" is an SQLite file it
// makes: everything a new throwaway engine writes, in one place, with
// one registration.
type scratch struct{ dir string }

func (scratch) Name() string               { return "scratch" }
func (scratch) Flags() engine.Flags        { return engine.Flags{} }
func (scratch) Caps() engine.Caps          { return engine.Caps{} }
func (scratch) CheckBin(string) error      { return nil }
func (scratch) Sampler() telemetry.Sampler { return nil }
func (scratch) TerminateSessions(context.Context, engine.Sessions) (int64, error) {
	return 0, errors.New("none")
}

func (s *scratch) Start(_ context.Context, sp target.Spec, o engine.StartOptions) (*engine.Server, error) {
	load, err := target.ParseSpec("sqlite:" + filepath.Join(s.dir, "scratch.db"))
	if err != nil {
		return nil, err
	}
	return &engine.Server{Process: &file{}, Load: load, Shown: sp.String() + " (a file)"}, nil
}

// file is the scratch server's process: there is none to signal.
type file struct{ stopped int }

func (*file) Kill(syscall.Signal) error     { return nil }
func (*file) Pause() (func(), error)        { return func() {}, nil }
func (*file) Restart(context.Context) error { return nil }
func (*file) Supervise(func(localdb.Event)) {}
func (*file) PID() int                      { return 0 }
func (f *file) Stop() error                 { f.stopped++; return nil }
func (f *file) StopNow() error              { return f.Stop() }

// TestAThrowawayEngineIsOnePackage adds an engine (its --db form and its
// Engine, registered) and nothing else: --db names it, engine.Of finds
// it, and job.Open starts its server, opens it and stops it on Close.
func TestAThrowawayEngineIsOnePackage(t *testing.T) {
	e := &scratch{dir: t.TempDir()}
	engine.Register(e)
	sp, err := target.ParseSpec("temp-scratch")
	if err != nil {
		t.Fatal(err)
	}
	if sp.Kind != scratchKind || !sp.Throwaway() || sp.Remote() || sp.String() != "temp-scratch" || sp.Engine() != "scratch" {
		t.Fatalf("--db temp-scratch reads as %+v (%s), want the scratch engine's throwaway kind", sp, sp)
	}
	if engine.Of(sp) != engine.Engine(e) {
		t.Fatalf("engine.Of(temp-scratch) = %v, want the registered scratch engine", engine.Of(sp))
	}
	if target.ThrowawayForm("scratch") != "temp-scratch" {
		t.Errorf("ThrowawayForm(scratch) = %q", target.ThrowawayForm("scratch"))
	}
	db, err := Open(context.Background(), Spec{DB: sp}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if db.Dialect().Name != "SQLite" || db.URL != "temp-scratch (a file)" {
		t.Errorf("opened %s as %q, want SQLite shown as the engine's Shown", db.Dialect().Name, db.URL)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

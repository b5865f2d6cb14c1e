package job

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/fault"
	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
)

// TestCheckSharedFailover: a failover refuses the study only where
// another run would meet the servers it changed: a cell sharing its
// cluster, or its own next repetition; cells of their own replication
// (--vary replication) and a failover-free study pass.
func TestCheckSharedFailover(t *testing.T) {
	db, err := target.ParseSpec("temp-postgres")
	if err != nil {
		t.Fatal(err)
	}
	fo, err := fault.Parse("5s:failover")
	if err != nil {
		t.Fatal(err)
	}
	spec := func(mode localdb.Replication, via target.ViaKind, faults ...fault.Spec) Spec {
		s := Spec{DB: db, Replication: Replication{Replicas: 2, Mode: mode}, Faults: faults}
		s.DB.Via.Kind = via
		return s
	}
	for _, c := range []struct {
		specs  []Spec
		repeat int
		want   string
	}{
		{[]Spec{spec(localdb.Async, target.ViaDirect, fo), spec(localdb.Sync, target.ViaDirect, fo)}, 1, ""},
		{[]Spec{spec(localdb.Async, target.ViaDirect), spec(localdb.Async, target.ViaPgBouncer)}, 3, ""},
		{[]Spec{spec(localdb.Sync, target.ViaDirect), spec(localdb.Sync, target.ViaPgBouncer, fo)}, 1, "cells a and b share one primary and its standbys, and b fails it over"},
		{[]Spec{spec(localdb.Async, target.ViaDirect, fo), spec(localdb.Sync, target.ViaDirect, fo)}, 2, "cell a: --fault failover or switchover with --repeat 2"},
	} {
		err := CheckSharedFailover(c.specs, []string{"a", "b"}, c.repeat)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("repeat %d: %v, want %q", c.repeat, err, c.want)
		}
	}
}

// TestCheckLadderFailover: a capacity search with a failover or a
// switchover is refused, one with another fault is not.
func TestCheckLadderFailover(t *testing.T) {
	for _, c := range []struct {
		fault string
		want  string
	}{
		{"5s:failover", "--fault failover or switchover in a capacity search"},
		{"5s:switchover", "every step after the first would start on what the failover left"},
		{"5s:kill-server", ""},
	} {
		f, err := fault.Parse(c.fault)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckLadderFailover(Spec{Replication: Replication{Replicas: 1}, Faults: []fault.Spec{f}})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.fault, err, c.want)
		}
	}
}

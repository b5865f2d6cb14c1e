package fault

import (
	"context"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// TestSoFar: the timeline so far holds a fault once injected, noted under
// way while it lasts, and with what it hit and how long it lasted once
// over; one not due yet is not on it.
func TestSoFar(t *testing.T) {
	release, hit := make(chan struct{}), make(chan struct{})
	s := New([]Spec{{At: 0, Kind: Reset}, {At: time.Hour, Kind: Reset}}, func(context.Context, Spec) (string, string) {
		close(hit)
		<-release
		return "network", ""
	}, 2*time.Hour, true)
	if f := s.SoFar(); len(f) != 0 {
		t.Fatalf("before the window: %+v", f)
	}
	s.Observer().Start()
	defer s.Wait(context.Background())
	<-hit
	if f := s.SoFar(); len(f) != 1 || f[0].Note != Ongoing || f[0].Kind != string(Reset) {
		t.Fatalf("while the fault lasts: %+v", f)
	}
	close(release)
	var f []result.Fault
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if f = s.SoFar(); len(f) == 1 && f[0].Note == "" {
			break
		}
	}
	if len(f) != 1 || f[0].Note != "" || f[0].Target != "network" || f[0].LastedS < 0 {
		t.Fatalf("once over: %+v", f)
	}
}

package fault

import (
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// Ongoing notes a fault still going on in the timeline so far.
const Ongoing = "going on"

// SoFar is the faults injected so far, for the timeline of a run still
// going (the live dashboard): each when it came and, once over, how long
// it lasted; one still going on is noted Ongoing. What followed each
// (its recovery) is measured once the window is over (Faults).
func (s *Schedule) SoFar() []result.Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []result.Fault
	now, t0 := time.Now().UnixNano(), s.t0.Load()
	for i, f := range s.faults {
		at := s.fired[i].Load()
		if at == 0 || t0 == 0 {
			continue
		}
		if !s.done[i] {
			f.AtS, f.LastedS, f.Note = seconds(at-t0), seconds(now-at), Ongoing
		}
		out = append(out, f)
	}
	return out
}

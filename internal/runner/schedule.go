package runner

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// schedule hands out cycle start times on one Poisson process at a given
// rate: the gaps between starts are exponentially distributed. Clients
// share it, so whichever client is free takes the next start, as pgbench's
// clients share their thread's schedule.
type schedule struct {
	mu   sync.Mutex
	at   time.Time
	mean float64 // nanoseconds between starts
	rng  *rand.Rand
}

func newSchedule(rate float64, seed uint64) *schedule {
	return &schedule{at: time.Now(), mean: 1e9 / rate, rng: rand.New(rand.NewPCG(seed, math.MaxUint64))}
}

// next returns the next start.
func (s *schedule) next() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at = s.at.Add(time.Duration(s.rng.ExpFloat64() * s.mean))
	return s.at
}

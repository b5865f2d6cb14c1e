package workload

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestBackoffIsCappedAndJittered(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for try := 1; try <= 30; try++ {
		limit := min(10*time.Millisecond<<min(try-1, 10), time.Second)
		seen := map[time.Duration]bool{}
		for i := 0; i < 50; i++ {
			d := Backoff(try, rng)
			if d < 0 || d > limit {
				t.Fatalf("try %d: backoff %s outside [0, %s]", try, d, limit)
			}
			seen[d] = true
		}
		if len(seen) < 40 {
			t.Errorf("try %d: only %d distinct waits in 50: not jittered", try, len(seen))
		}
	}
}

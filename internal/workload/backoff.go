package workload

import (
	"math/rand/v2"
	"time"
)

// Backoff is the wait before try+1 of something that failed: capped
// exponential backoff with full jitter, a random wait in
// [0, min(1s, 10ms * 2^(try-1))]. The runner's clients and the workloads'
// background loops share it.
func Backoff(try int, rng *rand.Rand) time.Duration {
	limit := 10 * time.Millisecond << min(try-1, 10)
	limit = min(limit, time.Second)
	return time.Duration(rng.Int64N(int64(limit) + 1))
}

// MaxReconnectBackoff is the longest ReconnectBackoff.
const MaxReconnectBackoff = 2 * time.Second

// ReconnectBackoff is the wait after the fails-th failure in a row to
// reach the database (refused, or the session lost: it is restarting or
// overloaded), so that a client does not spin against it: five times
// Backoff, at most MaxReconnectBackoff.
func ReconnectBackoff(fails int, rng *rand.Rand) time.Duration {
	return min(Backoff(fails, rng)*5, MaxReconnectBackoff)
}

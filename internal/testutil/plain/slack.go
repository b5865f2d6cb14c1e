package plain

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// maxLoadFactor bounds Slack: a deadline stretched further would let
// through the slowness it is there to catch.
const maxLoadFactor = 3

// LoadFactor is how busy the machine is now: the one-minute load average
// per core, at least 1 (an idle machine) and at most maxLoadFactor.
func LoadFactor() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	return loadFactor(string(b), runtime.NumCPU())
}

func loadFactor(loadavg string, cores int) float64 {
	f := strings.Fields(loadavg)
	if len(f) == 0 || cores < 1 {
		return 1
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 1
	}
	return min(max(l/float64(cores), 1), maxLoadFactor)
}

// Slack is the allowance d that a bound gives a loaded machine, scaled by
// LoadFactor: a test's bound is what it promises plus Slack(allowance),
// never the promise itself stretched.
func Slack(d time.Duration) time.Duration {
	return time.Duration(float64(d) * LoadFactor())
}

package tpcc

import (
	"fmt"
	"math/rand/v2"
)

// The A constants of NURand (clause 2.1.6): customer last names, customer
// ids and item ids.
const (
	aLast = 255
	aCID  = 1023
	aItem = 8191
)

// nurand is NURand(A, x, y) with the constant c.
func nurand(r *rand.Rand, a, c, x, y int) int {
	return ((uniform(r, 0, a)|uniform(r, x, y))+c)%(y-x+1) + x
}

// uniform is a random integer in [x, y].
func uniform(r *rand.Rand, x, y int) int { return x + r.IntN(y-x+1) }

// constants are the C values of NURand: chosen at load (clause 2.1.6.1)
// and kept in the database, so a run derives its own from them.
type constants struct{ last, cid, item int }

// loadConstants draws the load's constants.
func loadConstants(r *rand.Rand) constants {
	return constants{last: uniform(r, 0, aLast), cid: uniform(r, 0, aCID), item: uniform(r, 0, aItem)}
}

// runConstants draws the run's constants from the load's: C_LAST differs
// from the load's by 65 to 119, but not 96 or 112 (clause 2.1.6.1); the
// others may be any value and are kept.
func runConstants(r *rand.Rand, load constants) constants {
	run := load
	for {
		delta := uniform(r, 65, 119)
		if delta == 96 || delta == 112 {
			continue
		}
		if r.IntN(2) == 0 {
			delta = -delta
		}
		if v := load.last + delta; v >= 0 && v <= aLast {
			run.last = v
			return run
		}
	}
}

// checkConstants verifies clause 2.1.6.1's rule between the load's and the
// run's C_LAST.
func checkConstants(load, run constants) error {
	d := run.last - load.last
	if d < 0 {
		d = -d
	}
	if d < 65 || d > 119 || d == 96 || d == 112 {
		return fmt.Errorf("NURand C_LAST of the run (%d) and of the load (%d) differ by %d: clause 2.1.6.1 wants 65 to 119, not 96 or 112", run.last, load.last, d)
	}
	return nil
}

// syllables make the customers' last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastName is the last name of number n (0 to 999): its three digits'
// syllables.
func lastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

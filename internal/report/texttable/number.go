package texttable

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// None is what a table shows where nothing was measured.
const None = "-"

// Count is a count, whole, with comma thousands separators: 13,570. A
// median count between two runs' is rounded to the nearest whole.
func Count[N int | int64 | float64](n N) string {
	return Fixed(math.Round(float64(n)), 0)
}

// Fixed is v with prec decimals and comma thousands separators, as
// dbworkload's tables print: 13,570.51.
func Fixed(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return None
	}
	p := math.Pow10(prec)
	if r := math.Round(v*p) / p; !math.IsInf(r, 0) {
		v = r // halves away from zero, as people round: 7,031.25 is 7,031.3
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String() + frac
	if neg && strings.Trim(out, "0.,") != "" {
		out = "-" + out
	}
	return out
}

// MS is a latency in milliseconds: two decimals from 1 ms up, three
// significant digits below (0.00432: 4.32 us shows, not 0.00), "0" for a
// zero that was measured.
func MS(v float64) string {
	if a := math.Abs(v); a >= 1 || a == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return Fixed(v, 2)
	}
	return significant(v, 3)
}

// significant is v, a non-zero value under 1, with digits significant
// digits (and two decimals at least).
func significant(v float64, digits int) string {
	return Fixed(v, max(2, digits-1-int(math.Floor(math.Log10(math.Abs(v))))))
}

// Spread is the range of a value across repetitions relative to its median
// in %, "-" with fewer than two repetitions (nothing to spread).
func Spread(pct float64, reps int) string {
	if reps < 2 {
		return None
	}
	return fmt.Sprintf("%.0f%%", pct)
}

// Ratio is b/a as a factor: two decimals, or two significant digits below
// 0.1 (0.0093x, not 0.01x).
func Ratio(r float64) string {
	if a := math.Abs(r); a > 0 && a < 0.1 {
		return significant(r, 2) + "x"
	}
	return Fixed(r, 2) + "x"
}

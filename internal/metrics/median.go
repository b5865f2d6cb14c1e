package metrics

import "slices"

// Median is the middle of xs (the mean of the two middle values for an
// even count), 0 for none; xs is left as it is. Studies, suites and diff
// take it across repetitions.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

package report

import (
	"fmt"
	"math"

	"github.com/txnbench/txnbench/internal/result"
)

// oneIntervalNote says why r's charts over time show a single point: its
// whole measured window was one progress interval. "" when it has more.
func oneIntervalNote(r *result.Result) string {
	if len(r.Intervals) != 1 {
		return ""
	}
	return fmt.Sprintf("one point: the whole measured window (%.1f s) was one --progress interval; a shorter --progress gives more", r.MeasuredS)
}

// intervalLabel is an interval's label in the progress lines: its own end
// time, with the decimals its length needs (`1s`, `2s` at 1 s; `0.5s`,
// `1.0s` at 0.5 s), so that no two intervals share a label.
func intervalLabel(iv result.Interval) string {
	p := 2
	for d := 0; d < 2 && iv.LengthS > 0; d++ {
		x := iv.LengthS * math.Pow10(d)
		if x >= 0.75 && math.Abs(x-math.Round(x)) < 0.25 {
			p = d
			break
		}
	}
	if iv.LengthS <= 0 {
		p = 0
	}
	return fmt.Sprintf("%6.*fs", p, iv.ElapsedS)
}

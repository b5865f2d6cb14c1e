package report

import (
	"fmt"

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

package report

import (
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/result"
)

// shardLines describe the shards of a split run: where each ran, its
// clock's skew against the database server's (known to within half the
// round trip) and how late it started, and any shard a merge lacks.
func shardLines(r *result.Result) []string {
	var lines []string
	for _, s := range r.Shards {
		l := fmt.Sprintf("shard %d of %d of run %s on %s: clock %+.1f ms off the server's (±%.1f ms), start %s",
			s.Index, s.Count, s.RunID, s.Host, -s.SkewMS, s.RTTMS/2, s.Start.UTC().Format("15:04:05.000"))
		if s.LateMS > 0 {
			l += fmt.Sprintf(", %.1f ms late", s.LateMS)
		}
		lines = append(lines, l)
	}
	if m := r.MissingShards(); len(m) > 0 {
		ids := make([]string, len(m))
		for i, n := range m {
			ids[i] = fmt.Sprint(n)
		}
		lines = append(lines, fmt.Sprintf("missing shards of run %s: %s (their work is not in these numbers)", r.Shards[0].RunID, strings.Join(ids, ", ")))
	}
	return lines
}

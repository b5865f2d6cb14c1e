package study

import (
	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// ServerGap is one op of one cell, client against server: the median
// across the cell's repetitions of the op's mean latency and of its
// server time per execution (result.Op.ServerMS, from pg_stat_statements),
// and the gap between the two medians, which is the network, the client,
// think time and what pg_stat_statements does not time (parse, commit).
type ServerGap struct {
	Cell     string  `json:"cell"`
	Op       string  `json:"op"`
	ClientMS float64 `json:"client_ms"`
	ServerMS float64 `json:"server_ms"`
	GapMS    float64 `json:"gap_ms"`
}

// ServerGaps are the gaps of every cell of s and every transaction op the
// server timed in all of the cell's runs, in the cells' order. results[i]
// are the runs of s.Cells[i]; a cell without runs (nil) has no gaps.
func ServerGaps(s *Summary, results [][]*result.Result) []ServerGap {
	var out []ServerGap
	for i, rs := range results {
		if len(rs) == 0 || i >= len(s.Cells) {
			continue
		}
		label := s.Cells[i].Label
		for _, o := range rs[0].Ops {
			if !o.Kind.IsTxn() {
				continue
			}
			var client, server []float64
			for _, r := range rs {
				if ro := r.Op(o.Name); ro != nil && ro.ServerMS > 0 {
					client, server = append(client, ro.Mean), append(server, ro.ServerMS)
				}
			}
			if len(server) < len(rs) {
				continue // a run without server time: no honest median
			}
			g := ServerGap{Cell: label, Op: o.Name, ClientMS: metrics.Median(client), ServerMS: metrics.Median(server)}
			g.GapMS = g.ClientMS - g.ServerMS
			out = append(out, g)
		}
	}
	return out
}

package study

import (
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// CellLimit is one of the limits a cell's runs stored
// (result.Result.LimitedBy) and how many of its runs it bound.
type CellLimit struct {
	result.Limit
	Runs int `json:"runs"`
}

// cellLimits are the distinct limits of rs's runs, in the order first
// seen; runs without one (saved before it was kept) are left out.
func cellLimits(rs []*result.Result) []CellLimit {
	var out []CellLimit
next:
	for _, r := range rs {
		if r.LimitedBy == nil {
			continue
		}
		for i := range out {
			if out[i].Limit == *r.LimitedBy {
				out[i].Runs++
				continue next
			}
		}
		out = append(out, CellLimit{Limit: *r.LimitedBy, Runs: 1})
	}
	return out
}

// LimitedBy is the cell's "limited by:" text: its runs' one limit, or
// each with how many of runs it bound; "" when none was stored.
func (cs CellSummary) LimitedBy() string {
	runs := 0
	for _, l := range cs.Limits {
		runs += l.Runs
	}
	var parts []string
	for _, l := range cs.Limits {
		s := l.String()
		if len(cs.Limits) > 1 {
			s += fmt.Sprintf(" (%d of %d runs)", l.Runs, runs)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// ThisMachine says a limit of the cell's runs was a part that would run
// on a host of its own (a pooler, a proxy) sharing the machine's cores
// (result.Limit.ThisMachine).
func (cs CellSummary) ThisMachine() bool {
	for _, l := range cs.Limits {
		if l.ThisMachine {
			return true
		}
	}
	return false
}

// cellNetwork is the shaped network of rs's runs (the first's shape), the
// round trip measured during the window and the proxy's CPU the median of
// the runs'; nil without one.
func cellNetwork(rs []*result.Result) *result.Network {
	var win, cpu, held []float64
	var n *result.Network
	for _, r := range rs {
		if r.Network == nil || r.Network.Shape == "" {
			continue
		}
		if n == nil {
			c := *r.Network
			n = &c
		}
		win, cpu, held = append(win, r.Network.WindowRTTMs), append(cpu, r.Network.ProxyCPUS), append(held, r.Network.ProxyHeldMs)
	}
	if n != nil {
		n.WindowRTTMs, n.ProxyCPUS, n.ProxyHeldMs = metrics.Median(win), metrics.Median(cpu), metrics.Median(held)
	}
	return n
}

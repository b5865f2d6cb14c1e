package study

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// SLO is one goal a capacity search holds every step to: a statistic of
// an op, or the share of transactions that failed, against a bound.
type SLO struct {
	Text string `json:"slo"` // as given
	// Op is the op whose statistic is held ("" for errors).
	Op string `json:"op,omitempty"`
	// Stat is p50, p90, p95, p99, mean or max (latency, ms), count
	// (completed in the window), rate (completed per second), or errors
	// (failed transactions: a share in % when Pct, else a count).
	Stat  string  `json:"stat"`
	Cmp   string  `json:"cmp"` // <=, <, >= or >
	Value float64 `json:"value"`
	Pct   bool    `json:"pct,omitempty"`
}

// sloStats are the statistics of an op a goal may hold; the latencies
// take a duration.
var sloStats = map[string]bool{"p50": true, "p90": true, "p95": true, "p99": true, "mean": true, "max": true, "count": false, "rate": false}

// sloExample is the form named by every parse error.
const sloExample = "want OP.STAT<=VALUE or errors<=PCT%, e.g. --slo 'cycle.p99<=50ms' or --slo 'errors<=0.1%'"

// ParseSLO reads a goal: OP.STAT CMP VALUE with STAT p50, p90, p95, p99,
// mean or max and VALUE a duration (cycle.p99<=50ms), STAT count or rate
// and VALUE a number (cycle.rate>=100), or errors CMP VALUE with VALUE a
// share of the transactions (errors<=0.1%) or a count (errors<=0).
func ParseSLO(s string) (SLO, error) {
	g := SLO{Text: s}
	t := strings.Join(strings.Fields(s), "")
	var left, right string
	for _, cmp := range []string{"<=", ">=", "<", ">"} {
		if i := strings.Index(t, cmp); i >= 0 {
			left, right, g.Cmp = t[:i], t[i+len(cmp):], cmp
			break
		}
	}
	if g.Cmp == "" || left == "" || right == "" {
		return SLO{}, fmt.Errorf("--slo %q: %s", s, sloExample)
	}
	if strings.ContainsAny(right, "<>=") {
		return SLO{}, fmt.Errorf("--slo %q: one comparison per goal; give --slo again for another", s)
	}
	var err error
	if left == "errors" {
		g.Stat = "errors"
		num := strings.TrimSuffix(right, "%")
		g.Pct = num != right
		g.Value, err = strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(g.Value) || math.IsInf(g.Value, 0) || g.Value < 0 || g.Pct && g.Value > 100 {
			return SLO{}, fmt.Errorf("--slo %q: the errors' bound is a share from 0%% to 100%% (errors<=0.1%%) or a count (errors<=0)", s)
		}
		return g, nil
	}
	dot := strings.LastIndex(left, ".")
	if dot <= 0 {
		return SLO{}, fmt.Errorf("--slo %q: %s", s, sloExample)
	}
	g.Op, g.Stat = left[:dot], left[dot+1:]
	latency, ok := sloStats[g.Stat]
	if !ok {
		return SLO{}, fmt.Errorf("--slo %q: unknown statistic %q: use p50, p90, p95, p99, mean, max, count or rate", s, g.Stat)
	}
	if latency {
		d, err := time.ParseDuration(right)
		if err != nil || d <= 0 {
			return SLO{}, fmt.Errorf("--slo %q: a latency's bound is a positive duration with its unit, e.g. 50ms", s)
		}
		g.Value = float64(d) / float64(time.Millisecond)
		return g, nil
	}
	g.Value, err = strconv.ParseFloat(strings.TrimSuffix(right, "/s"), 64)
	if err != nil || math.IsNaN(g.Value) || math.IsInf(g.Value, 0) || g.Value < 0 {
		return SLO{}, fmt.Errorf("--slo %q: %s's bound is a number of 0 or more, e.g. %s.%s>=100", s, g.Stat, g.Op, g.Stat)
	}
	return g, nil
}

// CheckOps refuses a goal on an op that is not among names (the ops a
// step's run records, runner.OpNames), naming them, before anything
// starts; a statement's row (OP/N ..., known once a script is loaded) of
// one of them is let through, for Measure to find.
func CheckOps(goals []SLO, workload string, names []string) error {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	for _, g := range goals {
		if g.Op == "" || known[g.Op] {
			continue
		}
		if op, _, ok := strings.Cut(g.Op, "/"); ok && known[op] {
			continue
		}
		return fmt.Errorf("--slo %q: %s has no op %q: give one of %s", g.Text, workload, g.Op, strings.Join(names, ", "))
	}
	return nil
}

// ErrNoSuchOp is returned by Measure for a goal on an op the run did not
// have.
var ErrNoSuchOp = errors.New("no such op")

// Measure is the goal's statistic in r: ms for a latency, % or a count
// for errors.
func (g SLO) Measure(r *result.Result) (float64, error) {
	if g.Stat == "errors" {
		ok, failed := r.Transactions()
		if !g.Pct {
			return float64(failed), nil
		}
		if ok+failed == 0 {
			return 100, nil // nothing ended: no goal on errors is met
		}
		return 100 * float64(failed) / float64(ok+failed), nil
	}
	o := r.Op(g.Op)
	if o == nil {
		var names []string
		for _, op := range r.Ops {
			names = append(names, op.Name)
		}
		return 0, fmt.Errorf("--slo %q: %w %q in this workload's results: its ops are %s", g.Text, ErrNoSuchOp, g.Op, strings.Join(names, ", "))
	}
	switch g.Stat {
	case "count":
		return float64(o.Count), nil
	case "rate":
		if r.MeasuredS <= 0 {
			return 0, nil
		}
		return float64(o.Count) / r.MeasuredS, nil
	}
	if o.Count+o.AfterWindow == 0 {
		return math.Inf(1), nil // no latency measured: no latency goal is met
	}
	return latencyStat(g.Stat, o.Summary), nil
}

// latencyStat is the latency statistic stat (p50, p90, p95, p99, mean or
// max) of s.
func latencyStat(stat string, s metrics.Summary) float64 {
	return map[string]float64{"p50": s.P50, "p90": s.P90, "p95": s.P95, "p99": s.P99, "mean": s.Mean, "max": s.Max}[stat]
}

// Met says whether v meets the goal.
func (g SLO) Met(v float64) bool {
	switch g.Cmp {
	case "<=":
		return v <= g.Value
	case "<":
		return v < g.Value
	case ">=":
		return v >= g.Value
	default:
		return v > g.Value
	}
}

// Show is v in the goal's unit, e.g. "61.2ms" or "0.4%".
func (g SLO) Show(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "none measured"
	case sloStats[g.Stat]:
		return strconv.FormatFloat(v, 'f', 3, 64) + "ms"
	case g.Pct:
		return strconv.FormatFloat(v, 'f', 3, 64) + "%"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

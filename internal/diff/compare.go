package diff

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/stats"
)

// Verdicts of a decision.
const (
	Ok     = "ok"
	Better = "better"
	Worse  = "worse"
	// Same is a change beyond the threshold that is not significant: its
	// interval holds no change (stats.Same).
	Same = stats.Same
)

// Options steer a comparison.
type Options struct {
	// Thresholds are the per-family relative thresholds in %.
	Thresholds Thresholds
	// Fixed means the thresholds were given (--threshold): a study's
	// measured spread does not widen them.
	Fixed bool
	// AllowDifferent compares runs whose fixed settings differ; the
	// differences are reported instead of refused.
	AllowDifferent bool
}

// Report is the outcome of a comparison: one entry per scenario (or
// cell), each with a decision per metric.
type Report struct {
	Kind       Kind       `json:"kind"`
	Base       string     `json:"base"`
	New        string     `json:"new"`
	Thresholds Thresholds `json:"thresholds"`
	Fixed      bool       `json:"thresholds_given,omitempty"`
	// Different lists the fixed settings that differ (compared anyway
	// with AllowDifferent).
	Different []string   `json:"different_settings,omitempty"`
	Notes     []string   `json:"notes,omitempty"`
	Scenarios []Scenario `json:"scenarios"`
	// Regressions counts worse decisions; Regressed the scenarios with
	// at least one; Compared the scenarios on both sides.
	Regressions int `json:"regressions"`
	Improved    int `json:"better"`
	Regressed   int `json:"regressed_scenarios"`
	// NotSignificant counts the changes beyond their threshold whose
	// interval holds no change (verdict ~): noise, not a regression.
	NotSignificant int `json:"not_significant"`
	Compared       int `json:"compared_scenarios"`
}

// Scenario is one scenario's (or cell's) comparison.
type Scenario struct {
	Name string `json:"name"`
	// Only is "base" or "new" when the scenario is on one side only.
	Only        string     `json:"only_in,omitempty"`
	Decisions   []Decision `json:"decisions,omitempty"`
	Notes       []string   `json:"notes,omitempty"`
	Regressions int        `json:"regressions"`
}

// Decision is the verdict on one metric.
type Decision struct {
	Metric string  `json:"metric"` // e.g. "add p99 ms"
	Op     string  `json:"op,omitempty"`
	Family Family  `json:"family"`
	Unit   string  `json:"unit"`
	Base   float64 `json:"base"`
	New    float64 `json:"new"`
	// ChangePct is (new-base)/base in %; absent when base is 0.
	ChangePct    *float64 `json:"change_pct,omitempty"`
	ThresholdPct float64  `json:"threshold_pct"`
	Floor        float64  `json:"floor,omitempty"`
	// BelowFloor: the change passed the relative threshold but not the
	// absolute floor.
	BelowFloor   bool   `json:"below_floor,omitempty"`
	HigherBetter bool   `json:"higher_is_better"`
	Verdict      string `json:"verdict"`
	// Stats is the change's 95% interval and p, for rates and latencies
	// whose noise is known: from the repetitions of each side, or from a
	// single run's progress intervals and its machine's busy share. Nil
	// with NoiseUnknown (one run of one interval) or for a family decided
	// by its threshold alone (errors, counters, invariants).
	Stats        *Stats `json:"stats,omitempty"`
	NoiseUnknown bool   `json:"noise_unknown,omitempty"`
}

// Stats is how sure a decision is.
type Stats struct {
	// LowPct and HighPct bound the change in %, at 95%.
	LowPct  float64 `json:"low_pct"`
	HighPct float64 `json:"high_pct"`
	P       float64 `json:"p"`
	// Significant: the interval excludes no change.
	Significant bool `json:"significant"`
	// Base and New say what each side's noise came from ("3 runs",
	// "20 intervals of 1 run, busy 40%").
	Base string `json:"base_from"`
	New  string `json:"new_from"`
	// Counted: a throughput with too few events on one side, or with an
	// interval in which nothing completed, judged by the two counts
	// (Poisson) with the drift, not by intervals.
	Counted bool `json:"counted,omitempty"`
	// RunQueue is what the machine's scheduler explains of the change,
	// when the sides' run queues differed: the interval is that much
	// wider at each end.
	RunQueue *RunQueue `json:"run_queue,omitempty"`
}

// RunQueue is each side's run-queue stretch (1 + the time the run's
// processes waited for a core over their time on one) and the change of
// the metric in % their ratio predicts (negative: lower in NEW).
type RunQueue struct {
	Base    float64 `json:"base_stretch"`
	New     float64 `json:"new_stretch"`
	BiasPct float64 `json:"explains_pct"`
}

// DifferentError refuses a comparison of runs whose fixed settings differ.
type DifferentError struct{ Differences []string }

func (e *DifferentError) Error() string {
	d := e.Differences
	more := ""
	if len(d) > 6 {
		d, more = d[:6], fmt.Sprintf(" and %d more", len(e.Differences)-6)
	}
	return fmt.Sprintf("BASE and NEW differ in fixed settings (%s%s): compare runs of the same setup, or pass --allow-different to compare anyway",
		strings.Join(d, "; "), more)
}

// Compare compares new against base. It returns a *DifferentError when
// fixed settings differ and opt.AllowDifferent is not set, and an error
// when the inputs are of different kinds.
func Compare(base, new *Input, opt Options) (*Report, error) {
	if base.Kind != new.Kind {
		return nil, fmt.Errorf("BASE %s is a %s and NEW %s a %s: diff compares two results, two studies or two suites", base.Path, base.Kind, new.Path, new.Kind)
	}
	rep := &Report{Kind: base.Kind, Base: base.Path, New: new.Path, Thresholds: opt.Thresholds, Fixed: opt.Fixed}
	type pair struct{ b, n *Unit }
	var pairs []pair
	if base.Kind == KindResult {
		pairs = append(pairs, pair{&base.Units[0], &new.Units[0]})
	} else {
		byName := map[string]*Unit{}
		for i := range new.Units {
			byName[new.Units[i].Name] = &new.Units[i]
		}
		matched := map[string]bool{}
		for i := range base.Units {
			b := &base.Units[i]
			n := byName[b.Name]
			if n != nil {
				matched[b.Name] = true
			}
			pairs = append(pairs, pair{b, n})
		}
		for i := range new.Units {
			if !matched[new.Units[i].Name] {
				pairs = append(pairs, pair{nil, &new.Units[i]})
			}
		}
	}
	seenNote := map[string]bool{}
	for _, p := range pairs {
		switch {
		case p.n == nil:
			rep.Scenarios = append(rep.Scenarios, Scenario{Name: p.b.Name, Only: "base", Notes: []string{"only in BASE: not compared"}})
			if base.Kind == KindSuite {
				rep.Different = append(rep.Different, "scenario "+p.b.Name+" only in BASE")
			}
			continue
		case p.b == nil:
			rep.Scenarios = append(rep.Scenarios, Scenario{Name: p.n.Name, Only: "new", Notes: []string{"only in NEW: not compared"}})
			if base.Kind == KindSuite {
				rep.Different = append(rep.Different, "scenario "+p.n.Name+" only in NEW")
			}
			continue
		}
		if len(p.b.Results) > 0 && len(p.n.Results) > 0 {
			prefix := ""
			if base.Kind != KindResult {
				prefix = p.b.Name + ": "
			}
			for _, d := range settingDifferences(p.b.Results[0], p.n.Results[0]) {
				rep.Different = append(rep.Different, prefix+d)
			}
			if note := machineNote(p.b.Results[0], p.n.Results[0]); note != "" && !seenNote[note] {
				seenNote[note] = true
				rep.Notes = append(rep.Notes, note)
			}
		}
		rep.Scenarios = append(rep.Scenarios, compareUnits(p.b, p.n, opt))
	}
	if len(rep.Different) > 0 && !opt.AllowDifferent {
		return rep, &DifferentError{Differences: rep.Different}
	}
	for _, s := range rep.Scenarios {
		if s.Only != "" {
			continue
		}
		rep.Compared++
		rep.Regressions += s.Regressions
		if s.Regressions > 0 {
			rep.Regressed++
		}
		for _, d := range s.Decisions {
			switch d.Verdict {
			case Better:
				rep.Improved++
			case Same:
				rep.NotSignificant++
			}
		}
	}
	return rep, nil
}

// compareUnits decides every metric the two units share.
func compareUnits(b, n *Unit, opt Options) Scenario {
	sc := Scenario{Name: b.Name}
	switch {
	case n.Failed != "":
		sc.Decisions = append(sc.Decisions, Decision{Metric: "finished", Family: FamInvariants, Unit: UnitOK,
			Base: boolf(b.Failed == ""), New: 0, HigherBetter: true, Verdict: Worse}) // like a violation: broken in NEW fails the gate
		sc.Notes = append(sc.Notes, "failed in NEW: "+n.Failed)
		if b.Failed != "" {
			sc.Notes = append(sc.Notes, "failed in BASE too: "+b.Failed)
		}
	case b.Failed != "":
		sc.Decisions = append(sc.Decisions, Decision{Metric: "finished", Family: FamInvariants, Unit: UnitOK,
			Base: 0, New: 1, HigherBetter: true, Verdict: Better})
		sc.Notes = append(sc.Notes, "failed in BASE: "+b.Failed)
	}
	for _, u := range []struct {
		side string
		u    *Unit
	}{{"BASE", b}, {"NEW", n}} {
		if nc := notChecked(u.u.Results); nc != "" {
			sc.Notes = append(sc.Notes, "invariants not checked in "+u.side+" ("+nc+")")
		}
	}
	if len(b.Results) == 0 || len(n.Results) == 0 {
		sc.Regressions = countWorse(sc.Decisions)
		return sc
	}
	compareValues(&sc, b, n, opt)
	for _, d := range sc.Decisions {
		if d.Stats != nil && d.Family != FamErrors && !d.Stats.Counted {
			sc.Notes = append(sc.Notes, fmt.Sprintf("95%% intervals from BASE's %s and NEW's %s", d.Stats.Base, d.Stats.New))
			if q := d.Stats.RunQueue; q != nil {
				way := "slower"
				if q.New < q.Base {
					way = "faster"
				}
				sc.Notes = append(sc.Notes, fmt.Sprintf("run queue: the run's processes waited %.2gx their CPU time for a core in BASE, %.2gx in NEW: NEW up to %.2fx %s is the machine's, and the intervals reach that far", q.Base-1, q.New-1, max(q.New/q.Base, q.Base/q.New), way))
			}
			if chain, lb, ln := lockChain(b, n); chain >= 0.05 { // below, the widening is a few %
				sc.Notes = append(sc.Notes, fmt.Sprintf("lock chain: sessions waited on locks in %.0f%% of samples in BASE, %.0f%% in NEW: both went at one lock holder's pace, so the machine's drift counts %.2gx", 100*lb, 100*ln, 1+DriftLock*chain))
			}
			break
		}
	}
	sc.Notes = append(sc.Notes, newErrorClasses(errorClasses(b.Results), errorClasses(n.Results))...)
	sc.Notes = append(sc.Notes, runNotes(b, n)...)
	if note := topWaitNote(b.Results, n.Results); note != "" {
		sc.Notes = append(sc.Notes, note)
	}
	sc.Decisions, sc.Notes = unfinished(sc.Decisions, sc.Notes, b.Results, n.Results)
	sc.Regressions = countWorse(sc.Decisions)
	return sc
}

// compareValues decides every metric both units have enough samples of,
// and notes the ops and metrics on one side only and those with too few
// samples.
func compareValues(sc *Scenario, b, n *Unit, opt Options) {
	bv, nv := unitValues(b.Results), unitValues(n.Results)
	nm := map[string]value{}
	for _, v := range nv {
		nm[v.key()] = v
	}
	bm := map[string]bool{}
	bops, nops := map[string]bool{}, map[string]bool{}
	for _, v := range bv {
		bm[v.key()] = true
		bops[v.opID()] = true
	}
	for _, v := range nv {
		nops[v.opID()] = true
	}
	var few, onlyBase, onlyNew []string
	for _, v := range bv {
		w, ok := nm[v.key()]
		if !ok {
			if nops[v.opID()] {
				onlyBase = append(onlyBase, v.label())
			}
			continue
		}
		if (v.n < v.min || w.n < v.min) && !fewRate(v, w) {
			few = append(few, v.label())
			continue
		}
		sc.Decisions = append(sc.Decisions, decide(v, w, b, n, opt))
	}
	for _, v := range nv {
		if !bm[v.key()] && bops[v.opID()] {
			onlyNew = append(onlyNew, v.label())
		}
	}
	for _, o := range opsOnly(bv, nops) {
		sc.Notes = append(sc.Notes, "op "+o+" only in BASE")
	}
	for _, o := range opsOnly(nv, bops) {
		sc.Notes = append(sc.Notes, "op "+o+" only in NEW")
	}
	if len(onlyBase) > 0 {
		sc.Notes = append(sc.Notes, "only in BASE (not compared): "+strings.Join(onlyBase, ", "))
	}
	if len(onlyNew) > 0 {
		sc.Notes = append(sc.Notes, "only in NEW (not compared): "+strings.Join(onlyNew, ", "))
	}
	if len(few) > 0 {
		sc.Notes = append(sc.Notes, "too few samples to compare: "+strings.Join(few, ", "))
	}
}

// runNotes says which side had an interrupted run or aborted clients.
func runNotes(b, n *Unit) []string {
	var notes []string
	for _, side := range []struct {
		name string
		rs   []*result.Result
	}{{"BASE", b.Results}, {"NEW", n.Results}} {
		for _, r := range side.rs {
			if r.Interrupted {
				notes = append(notes, "a run of "+side.name+" was interrupted: its window was cut short")
				break
			}
		}
		aborted := 0
		for _, r := range side.rs {
			aborted += r.AbortedClients
		}
		if aborted > 0 {
			notes = append(notes, fmt.Sprintf("%d client(s) aborted in %s", aborted, side.name))
		}
	}
	return notes
}

// unfinished compares the transactions still running when the runs ended
// (per run): more in NEW is worse, as a hang is; any are said.
func unfinished(ds []Decision, notes []string, b, n []*result.Result) ([]Decision, []string) {
	perRun := func(rs []*result.Result) float64 {
		var u int64
		for _, r := range rs {
			for _, o := range r.Ops {
				if o.Kind.IsTxn() {
					u += o.Unfinished
				}
			}
		}
		return float64(u) / float64(len(rs))
	}
	bu, nu := perRun(b), perRun(n)
	if bu == 0 && nu == 0 {
		return ds, notes
	}
	if nu > bu {
		ds = append(ds, Decision{Metric: "unfinished ops", Family: FamErrors, Unit: UnitCount, Base: bu, New: nu, Verdict: Worse})
	}
	return ds, append(notes, fmt.Sprintf("transactions unfinished when the run ended, per run: BASE %g, NEW %g", bu, nu))
}

// opsOnly lists the ops of vs (other than the whole run) missing from other.
func opsOnly(vs []value, other map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vs {
		if u := v.opID(); v.op != "" && !other[u] && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// newErrorClasses names each error class an op has in NEW but not in BASE.
func newErrorClasses(b, n map[string]map[string]int64) []string {
	var out []string
	ops := slices.Sorted(maps.Keys(n))
	for _, op := range ops {
		classes := make([]string, 0, len(n[op]))
		for c := range n[op] {
			if b[op][c] == 0 {
				classes = append(classes, c)
			}
		}
		sort.Strings(classes)
		for _, c := range classes {
			out = append(out, fmt.Sprintf("new error class in NEW: %s %s (%d)", op, c, n[op][c]))
		}
	}
	return out
}

// threshold is the metric's threshold in %: its family's, widened (unless
// given with --threshold) for latencies of fewer than RefSamples samples,
// and for a study's cells to their measured spread on either side: the
// range of the op's mean latency across repetitions (study.md's spread)
// and the range of the metric itself.
func threshold(bv, nv value, b, n *Unit, opt Options) float64 {
	t := opt.Thresholds.For(nv.family)
	if opt.Fixed {
		return t
	}
	switch nv.family {
	case FamThroughput, FamMean, FamServer, FamP95, FamP99:
	default:
		return t
	}
	if n := min(bv.n, nv.n); nv.unit == UnitMS && n > 0 && n < RefSamples {
		t *= math.Sqrt(float64(RefSamples) / float64(n))
	}
	t = max(t, bv.spread, nv.spread)
	for _, u := range []*Unit{b, n} {
		if nv.op == "" { // the whole run: the widest spread of its ops
			for _, s := range u.Spread {
				t = max(t, s)
			}
		} else if s, ok := u.Spread[nv.op]; ok {
			t = max(t, s)
		}
	}
	return math.Round(t*10) / 10
}

// notChecked is why a unit's runs verified no invariants ("" when every
// run's check verified something).
func notChecked(rs []*result.Result) string {
	for _, r := range rs {
		if ch := r.Check(); ch.NotChecked != "" {
			return ch.NotChecked
		}
	}
	return ""
}

// decide compares one metric: a rate or a latency whose noise is known
// moves when its change passes its family's threshold and is significant;
// one whose noise is unknown, or another family, when it passes its
// threshold (widened, unless given, to the measured spread: threshold).
func decide(b, n value, bu, nu *Unit, opt Options) Decision {
	var st *stats.Result
	var bias, sb, sn float64
	chain, _, _ := lockChain(bu, nu)
	switch {
	case n.family == FamErrors && b.v == 0 && n.v == 0: // no errors either side
	case n.family == FamErrors:
		r := stats.CompareCounts(math.Round(b.v*float64(b.n)), float64(b.n), math.Round(n.v*float64(n.n)), float64(n.n))
		st = &r
	case counted(b, n):
		bias, sb, sn = machineBias(n.higher, bu, nu)
		r := stats.CompareRates(float64(b.n), seconds(b, n), float64(n.n), seconds(n, b), n.sample(b, chain).Drift, bias)
		st = &r
	case statistical(n.family):
		bias, sb, sn = machineBias(n.higher, bu, nu)
		r := stats.CompareBiased(b.sample(n, chain), n.sample(b, chain), b.v, n.v, bias)
		if r.Known {
			st = &r
		}
	}
	thr := opt.Thresholds.For(n.family)
	if st == nil {
		thr = threshold(b, n, bu, nu, opt)
	}
	d := Decision{Metric: n.label(), Op: n.op, Family: n.family, Unit: n.unit, Base: b.v, New: n.v,
		ThresholdPct: thr, Floor: n.floor, HigherBetter: n.higher, Verdict: Ok}
	if n.unit == UnitMS {
		d.Floor = busyFloor(b, n)
	}
	if st != nil {
		d.Stats = &Stats{LowPct: pct(st.Low), HighPct: pct(st.High), P: math.Round(st.P*1000) / 1000, Significant: st.Significant(),
			Base: b.basis(), New: n.basis()}
		if counted(b, n) {
			d.Stats.Counted = true
			d.Stats.Base, d.Stats.New = fmt.Sprintf("%d counted", b.n), fmt.Sprintf("%d counted", n.n)
		}
		if bias != 0 {
			d.Stats.RunQueue = &RunQueue{Base: math.Round(sb*100) / 100, New: math.Round(sn*100) / 100, BiasPct: pct(math.Exp(bias))}
		}
	} else {
		d.NoiseUnknown = statistical(n.family)
	}
	if n.family == FamInvariants {
		switch {
		case n.v < 1:
			d.Verdict = Worse // a violation in NEW always is
		case b.v < 1:
			d.Verdict = Better
		}
		return d
	}
	delta := n.v - b.v
	relMoved := true
	if b.v != 0 {
		c := 100 * delta / math.Abs(b.v)
		d.ChangePct = &c
		relMoved = math.Abs(c) > thr
	} else if delta == 0 {
		relMoved = false
	}
	if !relMoved {
		return d
	}
	if math.Abs(delta) <= d.Floor {
		d.BelowFloor = true
		return d
	}
	if d.Stats != nil && !d.Stats.Significant {
		d.Verdict = Same
		return d
	}
	if (delta > 0) == n.higher {
		d.Verdict = Better
	} else {
		d.Verdict = Worse
	}
	return d
}

// pct is a ratio as a change in %, to a tenth.
func pct(ratio float64) float64 { return math.Round(1000*(ratio-1)) / 10 }

func countWorse(ds []Decision) int {
	n := 0
	for _, d := range ds {
		if d.Verdict == Worse {
			n++
		}
	}
	return n
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// topWaitNote says when the wait event the sessions were seen in most
// changed (informational: a share of samples is no cost to gate on).
func topWaitNote(b, n []*result.Result) string {
	bw, bs := result.TopWait(b...)
	nw, ns := result.TopWait(n...)
	if bw == "" || nw == "" || bw == nw {
		return ""
	}
	return fmt.Sprintf("top wait changed: %s (%.0f%% of samples) in BASE, %s (%.0f%%) in NEW", bw, 100*bs, nw, 100*ns)
}

package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/report/texttable"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/stats"
	"github.com/txnbench/txnbench/internal/study"
)

// CapacitySearch writes a capacity search's ladder as Markdown
// (capacity.md, printed after the search): each step in the order run
// with its repetitions' verdicts, transactions per second and
// every goal's measure (the worst across repetitions), then the highest
// value that met every goal, the first that missed and why, and why the
// search stopped.
func CapacitySearch(w io.Writer, s *study.Search) {
	fmt.Fprintf(w, "## capacity by %s\n\n", s.Key)
	var goals []string
	for _, g := range s.Goals {
		goals = append(goals, "`"+g.Text+"`")
	}
	fmt.Fprintf(w, "goals: %s; each step repeated %d to %d times until its repetitions agree.\n\n", strings.Join(goals, ", "), s.MinReps, s.MaxReps)
	head := []string{"step", s.Key, "reps", "verdict", "txn/s"}
	for _, g := range s.Goals {
		head = append(head, g.Text)
	}
	rows := [][]string{head}
	near := false
	for i, st := range s.Steps {
		if len(st.Reps) == 0 {
			continue
		}
		verdict := "met"
		switch {
		case st.Empty:
			verdict = "measured nothing"
		case !st.Agreed:
			verdict = "missed (reps disagreed)"
		case !st.Met:
			verdict = "missed"
		}
		if st.Near() >= 0 {
			verdict += ", near the bound (~)"
			near = true
		}
		var tps []float64
		for _, rg := range st.Reps {
			tps = append(tps, rg.TxnPerS)
		}
		row := []string{strconv.Itoa(i + 1), s.Value(st.Value), strconv.Itoa(len(st.Reps)), verdict, texttable.Fixed(metrics.Median(tps), 1)}
		for k, g := range s.Goals {
			worst := float64(st.Reps[0].Measured[k])
			for _, rg := range st.Reps[1:] {
				if v := float64(rg.Measured[k]); g.Cmp[0] == '<' && v > worst || g.Cmp[0] == '>' && v < worst {
					worst = v
				}
			}
			cell := g.Show(worst)
			if k < len(st.Sure) && st.Sure[k] != nil && st.Sure[k].Near {
				cell += " (" + st.Sure[k].Text(g) + ")"
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	texttable.Write(w, texttable.Markdown, rows, 3) // ends with a blank line
	if near {
		fmt.Fprintf(w, "~ marks a goal whose 95%% interval at that step holds its bound (from the step's repetitions, or from its run's intervals when it ran once): its met or missed could have gone the other way; more --repeat or a longer --duration decides it.\n\n")
	}
	if s.Best > 0 {
		fmt.Fprintf(w, "highest %s that met every goal: **%s**%s\n", s.Key, s.Value(s.Best), nearText(s, s.Best))
	} else {
		fmt.Fprintf(w, "no %s tried met every goal\n", s.Key)
	}
	if s.Missed > 0 {
		fmt.Fprintf(w, "first %s that missed: %s, on %s%s\n", s.Key, s.Value(s.Missed), s.MissedGoal, nearText(s, s.Missed))
	} else {
		fmt.Fprintf(w, "no %s tried missed a goal\n", s.Key)
	}
	fmt.Fprintf(w, "stopped: %s\n", s.Stop)
}

// nearText says the decided step of value v was near a goal's bound:
// " (`add.p99<=100ms`: ~ near the bound: 81.200ms to 117.900ms)"; "" when
// it was not.
func nearText(s *study.Search, v float64) string {
	for i := len(s.Steps) - 1; i >= 0; i-- {
		st := &s.Steps[i]
		if st.Value != v || len(st.Reps) == 0 {
			continue
		}
		if k := st.Near(); k >= 0 {
			g := s.Goals[k]
			return fmt.Sprintf(" (`%s`: %s)", g.Text, st.Sure[k].Text(g))
		}
		return ""
	}
	return ""
}

// StudyMarkdown renders the study as Markdown (study.md, printed by
// txnbench report): what was compared, one table per op with every cell
// (and its change against the first with --compare first), the
// comparisons, the ladder when clients vary and, from each cell's runs
// (results, in the order of s.Cells; nil leaves it out), the client
// against the server. Markdown tables read well in a terminal too.
func StudyMarkdown(w io.Writer, s *study.Summary, results [][]*result.Result) {
	fmt.Fprintf(w, "# txnbench study: %s\n\n", s.Workload)
	fmt.Fprintf(w, "`%s`\n\n", strings.Join(s.Args, " "))
	var varied []string
	for _, v := range s.Vary {
		varied = append(varied, v.Key+" = "+strings.Join(v.Values, ", "))
	}
	fmt.Fprintf(w, "%d cells (%s), %d repetition(s) each, interleaved (every cell once, then every cell again: A B A B), so that each sees the machine's drift; medians across repetitions, spread = range of the mean across repetitions.\n\n",
		len(s.Cells), strings.Join(varied, "; "), s.Repeat)
	if l := s.DecisionLine(); l != "" {
		fmt.Fprintf(w, "%s\n\n", l)
	}
	for _, c := range s.Cells {
		if why := c.LeftOut(); why != "" {
			fmt.Fprintf(w, "**cell %s %s**: left out of the comparisons.\n\n", c.Label, why)
		}
	}
	bad := 0
	for _, c := range s.Cells {
		switch inv := c.Invariants(); {
		case inv.Violated():
			bad++
			fmt.Fprintf(w, "**invariants VIOLATED in cell %s**\n\n", c.Label)
		case inv.NotChecked != "":
			bad++
			fmt.Fprintf(w, "invariants: %s in cell %s\n\n", inv.Status(), c.Label)
		}
	}
	if bad == 0 {
		fmt.Fprintf(w, "invariants: OK in every run\n\n")
	}
	for _, c := range s.Cells {
		if b := c.Behind; b != nil {
			fmt.Fprintf(w, "**cell %s fell behind its schedule** in %d of %d runs: %s\n\n", c.Label, c.BehindRuns, max(len(c.Results), c.BehindRuns), b.Text())
		}
	}
	for _, t := range studySections(s, results) {
		t.write(w)
	}
}

// studySections are study.md's sections after its header, in order, as tables
// with their notes: the per-cell tables, one table per op, the client's
// cost, the comparisons, the faults' recovery, the ladders and, from the
// runs of each cell (results, in the order of s.Cells; nil leaves it
// out), the client against the server. study.html shows them all.
func studySections(s *study.Summary, results [][]*result.Result) []studyTable {
	if len(s.Cells) == 0 {
		return nil
	}
	out := append(cellTables(s), isolationTables(s)...)
	for _, o := range s.AllOps() {
		title := o.Name
		if o.Kind == result.KindPhase {
			title += " (phase)"
		}
		rows := [][]string{{"cell", "ops/s", "mean (ms)", "p50 (ms)", "p90 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)", "errors", "spread", "mean vs first", "ops/s vs first"}}
		first := s.Cells[0].OpOf(o.Name, o.Kind)
		for i, c := range s.Cells {
			st := c.OpOf(o.Name, o.Kind)
			if st == nil {
				continue
			}
			vsMean, vsRate := "-", "-"
			if i > 0 && first != nil {
				vsMean, vsRate = study.Change(first.Mean, st.Mean), study.Change(first.OpsPerS, st.OpsPerS)
			}
			l, p50 := lats(*st), texttable.None
			if st.Measured() {
				p50 = ms(st.P50)
			}
			rows = append(rows, []string{c.Label, f1(st.OpsPerS), l[0], p50, l[1], l[2], l[3], l[4],
				texttable.Count(st.Errors), texttable.Spread(st.Spread, s.Repeat), vsMean, vsRate})
		}
		out = append(out, studyTable{Title: title, Rows: studyVsFirst(s, rows), Left: []int{0}})
	}
	rows := [][]string{{"cell", "txn/s", "CPU per txn (ms)", "allocated per txn (KB)", "peak memory (MB)", "txn/s vs first"}}
	for i, c := range s.Cells {
		vs := "-"
		if i > 0 {
			vs = study.Change(s.Cells[0].TxnPerS, c.TxnPerS)
		}
		rows = append(rows, []string{c.Label, f1(c.TxnPerS), ms(c.ClientCPUPerTxnMS), f1(c.AllocPerTxnKB), texttable.Fixed(c.PeakMB, 0), vs})
	}
	out = append(out, studyTable{Title: "client (txnbench's own cost)", Rows: studyVsFirst(s, rows), Left: []int{0}})
	if t, ok := limitTable(s); ok {
		out = append(out, t)
	}
	out = append(out, comparisonTables(study.Compare(s))...)
	out = append(out, recoveryTables(s)...)
	for _, l := range study.Ladders(s) {
		out = append(out, ladderTable(l))
	}
	return append(out, gapTables(s, results)...)
}

// limitTable is what limited each cell (each run's stored "limited by:"),
// with the shaped network's round trip, asked and measured during the
// window, and its proxy's CPU when a cell has one; false when no cell's
// runs stored a limit.
func limitTable(s *study.Summary) (studyTable, bool) {
	var limits, network bool
	var local []string
	for _, c := range s.Cells {
		limits = limits || len(c.Limits) > 0
		network = network || c.Network != nil
		if c.ThisMachine() {
			local = append(local, c.Label)
		}
	}
	if !limits {
		return studyTable{}, false
	}
	head := []string{"cell", "txn/s"}
	if network {
		head = append(head, "rtt asked / during the run")
	}
	rows := [][]string{append(head, "limited by")}
	for _, c := range s.Cells {
		row := []string{c.Label, f1(c.TxnPerS)}
		if network {
			row = append(row, c.Network.RTT(c.DurationS))
		}
		rows = append(rows, append(row, c.LimitedBy()))
	}
	after := "What bound each cell's runs, as each run decided it from its own figures (docs/telemetry.md: the CPU of the parts txnbench started and of the machine, waits, refusals, round trips)."
	if network {
		after += " The round trip during the run is the median of trivial queries sent through the shaped path in the window, under the run's load, with the proxy's CPU (it runs inside txnbench); (off) marks one more than 20% from what was asked."
	}
	if len(local) > 0 {
		after += fmt.Sprintf(" **This machine's conclusion:** %s were bound by a part that would run on a host of its own in production (a pooler, a proxy) while it shared this machine's cores with the rest of the run: the comparisons that involve them say how this machine runs that part, not how the part would do on its own host.", strings.Join(local, ", "))
	}
	left := []int{0, len(head)}
	return studyTable{Title: "limited by", Rows: rows, Left: left, After: after}, true
}

// ladderTable is the ladder as a section of study.md.
func ladderTable(l study.Ladder) studyTable {
	title := "throughput by clients"
	if l.Others != "" {
		title += " (" + l.Others + ")"
	}
	rows := [][]string{{"clients", "txn/s", "vs previous", "gain per repetition", "gain (95% interval)", "cycle p99 (ms)", ""}}
	for i, s := range l.Steps {
		vs, gain := "-", "-"
		if i > 0 {
			vs = study.Change(l.Steps[i-1].TxnPerS, s.TxnPerS)
		}
		switch {
		case s.Paired == 1:
			gain = fmt.Sprintf("%+.0f%% (1 rep)", s.GainMin)
		case s.Paired > 1:
			gain = fmt.Sprintf("%+.0f%% to %+.0f%%", s.GainMin, s.GainMax)
		}
		rows = append(rows, []string{strconv.Itoa(s.Clients), f1(s.TxnPerS), vs, gain, s.GainText(), ms(s.CycleP99), ladderMark(l, i)})
	}
	return studyTable{Title: title, Rows: rows, Left: []int{0, 6}, After: l.Note()}
}

// ladderMark is the ladder table's last column at step i.
func ladderMark(l study.Ladder, i int) string {
	switch {
	case i == l.Knee:
		return "<- throughput stops growing"
	case i == 0 || l.Knee >= 0 && i > l.Knee:
		return ""
	case l.Steps[i].Verdict == study.RungSame:
		return "<- ~: knee not established"
	case !l.Stalls(i) || l.Steps[i].Paired > 1:
		return ""
	case l.Steps[i].Paired == 1:
		return fmt.Sprintf("<- under %+.0f%% on one repetition: knee not established", study.KneeGain)
	}
	return "<- repetitions not recorded: knee not established"
}

// lats are o's latencies (mean, p90, p95, p99, max): "-" each when
// nothing completed, so nothing was measured (a capacity rung whose
// schedule started no transaction in its window printed 0.00).
func lats(o study.OpStats) []string {
	if !o.Measured() {
		return []string{texttable.None, texttable.None, texttable.None, texttable.None, texttable.None}
	}
	return []string{ms(o.Mean), ms(o.P90), ms(o.P95), ms(o.P99), ms(o.Max)}
}

// errorClasses is o's errors by class, largest first: "too_many_connections
// 190, connect_refused 3"; "-" when none.
func errorClasses(o study.OpStats) string {
	var names []string
	for k, v := range o.ErrorClasses {
		if v > 0 {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return texttable.None
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := o.ErrorClasses[names[i]], o.ErrorClasses[names[j]]
		return a > b || a == b && names[i] < names[j]
	})
	for i, k := range names {
		names[i] = k + " " + texttable.Count(o.ErrorClasses[k])
	}
	return strings.Join(names, ", ")
}

// deltaHeads are the database table's headings of result.DeltaCounters.
var deltaHeads = map[string]string{
	"xact_commit": "commits", "xact_rollback": "rollbacks", "blks_hit": "blks hit", "blks_read": "blks read",
	"tup_inserted": "tup inserted", "tup_updated": "tup updated", "tup_deleted": "tup deleted",
}

// cellTables are the per-cell tables of a published baseline: the
// summary of all transactions, the phases (when the workload has any) and
// the database counters with the top wait (when telemetry ran). A
// study.json from before these columns has none of them to show.
func cellTables(s *study.Summary) []studyTable {
	var out []studyTable
	var txns, phases, db bool
	for _, c := range s.Cells {
		txns = txns || c.Txn.Count > 0 || c.Txn.Errors > 0
		db = db || len(c.Database) > 0 || c.TopWait != ""
		for _, o := range c.Ops {
			phases = phases || o.Kind == result.KindPhase
		}
	}
	if unit := cycleUnit(s); unit != "" {
		out = append(out, unitSummary(s, unit))
	} else if txns {
		rows := [][]string{{"cell", "clients", "txns", "duration (s)", "txn/s", "mean (ms)", "p90 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)", "errors", "success", "errors by class"}}
		for _, c := range s.Cells {
			t := c.Txn
			row := []string{cellName(c), strconv.Itoa(c.Clients), texttable.Count(t.Count), texttable.Fixed(c.DurationS, 2), f1(c.TxnPerS)}
			row = append(append(row, lats(t)...), texttable.Count(t.Errors), successPct(t), errorClasses(t))
			rows = append(rows, row)
		}
		out = append(out, studyTable{Title: "summary (all transactions)", Rows: rows, Left: []int{0, 12},
			After: "txns are the transactions committed in the measured window, every transaction op merged; errors failed after their retries (medians, by class too); success is txns / (txns + errors)."})
	}
	if phases {
		rows := [][]string{{"cell", "phase", "count", "mean (ms)", "p90 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)"}}
		for _, c := range s.Cells {
			for _, o := range result.PhaseRows(c.Ops, func(o study.OpStats) result.Kind { return o.Kind }) {
				rows = append(rows, []string{c.Label, o.Name, texttable.Count(o.Count), ms(o.Mean), ms(o.P90), ms(o.P95), ms(o.P99), ms(o.Max)})
			}
		}
		out = append(out, studyTable{Title: "phases", Rows: rows, Left: []int{0, 1}})
	}
	if db {
		head := []string{"cell", "txn/s"}
		for _, k := range result.DeltaCounters {
			head = append(head, deltaHeads[k])
		}
		rows := [][]string{append(head, "top wait")}
		for _, c := range s.Cells {
			row := []string{c.Label, f1(c.TxnPerS)}
			for _, k := range result.DeltaCounters {
				v, ok := c.Database[k]
				switch {
				case !ok:
					row = append(row, "")
				case k == "xact_commit" && c.Commits != nil:
					row = append(row, CommitsText(*c.Commits))
				default:
					row = append(row, texttable.Count(v))
				}
			}
			top := ""
			if c.TopWait != "" {
				top = fmt.Sprintf("%s (%.0f%%)", c.TopWait, 100*c.TopWaitShare)
			}
			rows = append(rows, append(row, top))
		}
		left := []int{0, len(head)}
		if i := slices.Index(result.DeltaCounters, "xact_commit"); i >= 0 {
			left = append(left, 2+i) // commits read as a sum
		}
		out = append(out, studyTable{Title: "database", Rows: rows, Left: left,
			After: "Counters are the run database's change over the measured window (pg_stat_database), until the clients are gone: commits are those of the repetition with the median commits, with the clients' transactions they cover (those completed in the window, after it, and begun in the warm-up), as the run's report adds them up; the top wait is the wait event the cell's sessions were seen in most while in a transaction, over all its runs, with its share of the samples."})
	}
	return out
}

// cellName is a cell's label in the summary tables, marked when it is
// left out of the comparisons: "clients=256 (stalled)", "x=1 (empty)".
func cellName(c study.CellSummary) string {
	switch why := c.LeftOut(); {
	case why == "":
		return c.Label
	case c.StalledRuns > 0:
		return c.Label + " (stalled)"
	}
	return c.Label + " (empty)"
}

// cycleUnit is what the cells' cycles are when every cell's workload
// counts them ("workflows"), "" otherwise.
func cycleUnit(s *study.Summary) string {
	unit := s.Cells[0].Unit
	for _, c := range s.Cells {
		if c.Unit != unit || c.Op(result.CycleOp) == nil {
			return ""
		}
	}
	return unit
}

// unitSummary is the per-cell summary of a workload that counts its
// cycles as units (the workflow workload's workflows): their count,
// rate, latencies and errors, with the transactions in their own
// columns, each heading naming what it counts.
func unitSummary(s *study.Summary, unit string) studyTable {
	rows := [][]string{{"cell", "clients", unit, "duration (s)", unit + "/s", "mean (ms)", "p90 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)", "errors", "success", "txns", "txn/s", "txn errors by class"}}
	for _, c := range s.Cells {
		cy := c.Op(result.CycleOp)
		row := []string{cellName(c), strconv.Itoa(c.Clients), texttable.Count(cy.Count), texttable.Fixed(c.DurationS, 2), f1(cy.OpsPerS)}
		row = append(append(row, lats(*cy)...), texttable.Count(cy.Errors), successPct(*cy), texttable.Count(c.Txn.Count), f1(c.TxnPerS), errorClasses(c.Txn))
		rows = append(rows, row)
	}
	return studyTable{Title: "summary (" + unit + ")", Rows: rows, Left: []int{0, 14},
		After: fmt.Sprintf("%s are the workload's cycles completed in the measured window, each one of them from its start to its completion: %s/s, the latencies, errors and success (%s / (%s + errors)) are theirs; txns are the transactions committed in the window, every transaction op merged (a cycle runs several), txn/s their rate, and their errors by class (medians).", unit, unit, unit, unit)}
}

// gapTables is the "client vs server" table, none when no op was timed by
// the server.
func gapTables(s *study.Summary, results [][]*result.Result) []studyTable {
	gaps := study.ServerGaps(s, results)
	if len(gaps) == 0 {
		return nil
	}
	rows := [][]string{{"cell", "op", "client mean (ms)", "server (ms)", "gap (ms)", "server share"}}
	for _, g := range gaps {
		share := "-"
		if g.ClientMS > 0 {
			share = fmt.Sprintf("%.0f%%", 100*g.ServerMS/g.ClientMS)
		}
		rows = append(rows, []string{g.Cell, g.Op, ms(g.ClientMS), ms(g.ServerMS), ms(g.GapMS), share})
	}
	return []studyTable{{Title: "client vs server", Rows: rows, Left: []int{0, 1},
		Note: "Per transaction: the client's mean latency, the server's execution time of its statements (pg_stat_statements), and the gap: network, client, think time, parse and commit."}}
}

// studyTable is one section of study.md as rows, the first the header, with
// the note above it and the one below: study.md and study.html draw the
// same tables (Sections).
type studyTable struct {
	Title string
	Note  string
	Rows  [][]string
	Left  []int // the columns aligned left
	After string
}

// changeNote says how to read a change, in every table that has one.
const changeNote = "change = (to - from) / from and the factor to/from: latency (ms) is better lower, so -89% (0.11x) is 89% faster; ops/s is better higher, so +25% is 25% more. After it, how sure it is: better or worse when its 95% interval (in brackets) excludes no change, ~ when it does not (a difference the repetitions cannot tell from their noise), ? when a cell ran once (the noise is unknown: --repeat 3); from the two cells' repetitions, Welch's t on their logarithms (docs/studies.md)."

// comparisonTables renders a study's comparisons.
func comparisonTables(c *study.Comparisons) []studyTable {
	if c == nil {
		return nil
	}
	var out []studyTable
	for i, a := range c.Axes {
		t := studyTable{Title: a.Axis + ": " + strings.Join(a.Values, " -> "), Left: []int{0, 1}}
		if i == 0 {
			t.Note = changeNote // once, above the first
		}
		if len(a.Held) > 0 {
			t.Title += " (" + study.Cell{Settings: a.Held}.Label() + ")"
		}
		head := []string{"op", "metric", a.Values[0]}
		for i := 1; i < len(a.Values); i++ {
			head = append(head, a.Values[i], a.Values[i-1]+" -> "+a.Values[i])
		}
		t.Rows = append(t.Rows, head)
		for _, r := range a.Rows {
			row := []string{r.Op, study.MetricLabel(r.Metric), axisValue(r.Metric, r.Values[0])}
			for i := 1; i < len(r.Values); i++ {
				var ps *study.PairStats
				if i-1 < len(r.Stats) {
					ps = r.Stats[i-1]
				}
				row = append(row, axisValue(r.Metric, r.Values[i]), axisChange(r.Values[i-1], r.Values[i])+pairText(ps))
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	if len(c.FixedWork) > 0 {
		out = append(out, fixedWorkTable(c))
	}
	if len(c.Connect) > 0 {
		t := studyTable{Title: "connect overhead: per-txn against kept connections", Left: []int{0, 1, 2},
			Note: "speedup = per-txn latency / the kept connection's (mean, and p50); connect share (by difference) = (per-txn - kept) / per-txn mean: the latency a kept connection saves; connect time share = connect time / (connect time + query time) per transaction, from the per-txn cell's connect row alone (its connect mean / the op's mean, which includes it): the definition of seed 001. They differ when keeping a connection also changes the query's time (a pool's wait, a warm session's caches)."}
		t.Rows = append(t.Rows, []string{"settings", "op", "against", "per-txn mean (ms)", "kept mean (ms)", "speedup", "speedup (p50)", "connect share (by difference)", "connect time share"})
		for _, co := range c.Connect {
			held := study.Cell{Settings: co.Held}.Label()
			if held == "" {
				held = "-"
			}
			timeShare := texttable.None
			if co.ConnectTimePct > 0 {
				timeShare = fmt.Sprintf("%.1f%%", co.ConnectTimePct)
			}
			p50 := "-"
			if co.SpeedupP50 > 0 {
				p50 = fmt.Sprintf("%.1fx", co.SpeedupP50)
			}
			t.Rows = append(t.Rows, []string{held, co.Op, "conn=" + co.Pooled, ms(co.PerTxnMS), ms(co.PooledMS),
				fmt.Sprintf("%.1fx", co.Speedup), p50, fmt.Sprintf("%.1f%%", co.ConnectPct), timeShare})
		}
		out = append(out, t)
	}
	return out
}

// fixedWorkTable is the wall times, one column per kind of ratio.
func fixedWorkTable(c *study.Comparisons) studyTable {
	seen := map[string]bool{}
	for _, w := range c.FixedWork {
		for _, v := range w.Vs {
			seen[v.Axis] = true
		}
	}
	var cols []string // the axes compared, in order, "" for the first cell
	for _, a := range append([]string{""}, c.Varied()...) {
		if seen[a] {
			cols = append(cols, a)
		}
	}
	t := studyTable{Title: "fixed work (--iterations)", Left: []int{0},
		Note: "wall time: the median measured window of the cell's repetitions, from the first cycle to the last; a change against the previous value of a setting (the others held) is better lower."}
	head := []string{"cell", "cycles", "wall time"}
	for _, a := range cols {
		if a == "" {
			head = append(head, "vs first")
		} else {
			head = append(head, "vs previous "+a)
		}
	}
	t.Rows = append(t.Rows, head)
	for _, w := range c.FixedWork {
		row := []string{w.Cell, texttable.Count(float64(w.Cycles)), wallTime(w.WallS)}
		for _, a := range cols {
			cell := "-"
			for _, v := range w.Vs {
				if v.Axis == a {
					cell = study.Change(1, v.Ratio)
				}
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// wallTime prints seconds as a duration: 185ms, 4.2s, 14m36s, 1h14m49s.
func wallTime(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func axisValue(metric string, v float64) string {
	switch metric {
	case "ops_per_s":
		return f1(v)
	case "errors":
		return texttable.Count(v)
	}
	return ms(v)
}

// pairText is how sure an axis table's change is, after it: " better
// (-91% to -86%)", " ~ (p=0.40, -31% to +62%)", " ? (1 repetition: noise
// unknown)"; "" for a count.
func pairText(ps *study.PairStats) string {
	switch {
	case ps == nil:
		return ""
	case ps.Verdict == stats.Unknown:
		return fmt.Sprintf(" ? (%d+%d repetitions: noise unknown)", ps.Reps[0], ps.Reps[1])
	case ps.Verdict == stats.Same:
		return fmt.Sprintf(" ~ (p=%.2f, %+.0f%% to %+.0f%%)", ps.P, ps.LowPct, ps.HighPct)
	}
	return fmt.Sprintf(" %s (%+.0f%% to %+.0f%%)", ps.Verdict, ps.LowPct, ps.HighPct)
}

// axisChange is the change from a to b in an axis table: a count that
// grew from none says so, none both times is "-".
func axisChange(a, b float64) string {
	switch {
	case a == 0 && b == 0:
		return texttable.None
	case a == 0:
		return "from 0"
	}
	return study.Change(a, b)
}

// write writes t as a section of study.md.
func (t studyTable) write(w io.Writer) {
	fmt.Fprintf(w, "## %s\n\n", t.Title)
	if t.Note != "" {
		fmt.Fprintf(w, "%s\n\n", t.Note)
	}
	texttable.Write(w, texttable.Markdown, t.Rows, t.Left...)
	if t.After != "" {
		fmt.Fprintf(w, "%s\n\n", t.After)
	}
}

// studyVsFirst drops the "vs first" columns of a table's rows (the first is
// the header) unless s compares with the first cell (--compare first).
func studyVsFirst(s *study.Summary, rows [][]string) [][]string {
	if s.Mode() == study.CompareFirst || len(rows) == 0 {
		return rows
	}
	var keep []int
	for i, h := range rows[0] {
		if !strings.HasSuffix(h, " vs first") {
			keep = append(keep, i)
		}
	}
	out := make([][]string, len(rows))
	for r, row := range rows {
		for _, i := range keep {
			if i < len(row) {
				out[r] = append(out[r], row[i])
			}
		}
	}
	return out
}

// recoveryTables is the faults' recovery per cell, when a cell had
// faults: the cells side by side, so connection strategies compare.
func recoveryTables(s *study.Summary) []studyTable {
	rows := [][]string{{"cell", "fault", "first ok after (s)", "90% throughput after (s)", "errors", "reconnects", "invariants"}}
	for _, c := range s.Cells {
		for _, f := range c.Faults {
			recs := "-"
			if f.Reconnects != nil {
				recs = texttable.Count(*f.Reconnects)
			}
			rows = append(rows, []string{c.Label, f.Fault, recovered(f.FirstOKS, f.NoFirstOK, f.Runs),
				recovered(f.ThroughputS, f.NoThroughput, f.Runs), texttable.Count(f.Errors), recs, c.Invariants().Status()})
		}
	}
	if len(rows) == 1 {
		return nil
	}
	return []studyTable{{Title: "faults: recovery", Rows: rows, Left: []int{0, 1, 6},
		After: "medians across repetitions; \"never\" counts the repetitions that did not recover so before the next fault or the window's end."}}
}

// recovered is a median recovery time and how many runs never recovered.
func recovered(v *float64, never, runs int) string {
	s := "-"
	if v != nil {
		s = texttable.Fixed(*v, 2)
	}
	if never > 0 {
		s += fmt.Sprintf(" (never in %d of %d)", never, runs)
	}
	return s
}

// f1 is texttable's rate format: one decimal.
func f1(v float64) string { return texttable.Fixed(v, 1) }

// successPct is the share of o's ops that succeeded, in % (medians of
// both); "-" when none ended.
func successPct(o study.OpStats) string {
	if o.Count+o.Errors <= 0 {
		return texttable.None
	}
	return texttable.Fixed(100*o.Count/(o.Count+o.Errors), 2) + "%"
}

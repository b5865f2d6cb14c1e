package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/report/texttable"
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
	for i, st := range s.Steps {
		if len(st.Reps) == 0 {
			continue
		}
		verdict := "met"
		switch {
		case !st.Agreed:
			verdict = "missed (reps disagreed)"
		case !st.Met:
			verdict = "missed"
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
			row = append(row, g.Show(worst))
		}
		rows = append(rows, row)
	}
	texttable.Write(w, texttable.Markdown, rows, 3) // ends with a blank line
	if s.Best > 0 {
		fmt.Fprintf(w, "highest %s that met every goal: **%s**\n", s.Key, s.Value(s.Best))
	} else {
		fmt.Fprintf(w, "no %s tried met every goal\n", s.Key)
	}
	if s.Missed > 0 {
		fmt.Fprintf(w, "first %s that missed: %s, on %s\n", s.Key, s.Value(s.Missed), s.MissedGoal)
	} else {
		fmt.Fprintf(w, "no %s tried missed a goal\n", s.Key)
	}
	fmt.Fprintf(w, "stopped: %s\n", s.Stop)
}

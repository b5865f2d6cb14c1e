package study

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// Plan is a study ready to run: its cells, checked, and where its files go.
type Plan struct {
	Workload string
	Cells    []Cell
	Vary     []Vary
	Repeat   int
	Out      string   // an existing directory
	Args     []string // the study's command line, passwords masked
	Compare  CompareMode
	// Next, when set, makes the study a search (txnbench capacity): the
	// cells are chosen as it goes instead of Cells being run interleaved.
	// Before each run it is given the cells so far and each one's results,
	// and returns the cell to run, one of cells again (by label) for
	// another repetition or a new one, or ok false when the study is done.
	// The summary's cells are then in the order of their first setting's
	// value when every value is a number, and Vary lists the values run.
	Next func(cells []Cell, results [][]*result.Result) (c Cell, ok bool, err error)
}

// Env is what a study needs from its caller: it runs the cells, renders
// study.html and shows progress. The study package prints nothing itself.
type Env struct {
	// Open readies the database of a cell, before its run is announced.
	Open func(ctx context.Context, cell int) error
	// Run runs one repetition of a cell; a result is returned when the
	// run measured something, even beside an error.
	Run func(ctx context.Context, cell int) (*result.Result, error)
	// HTML writes study.html to path from the summary, each cell's first
	// result and all of its results.
	HTML func(path string, s *Summary, firsts []*result.Result, all [][]*result.Result) error
	// CSV writes study.csv to path: the cells, one row per op each.
	CSV func(path string, s *Summary) error
	// Status shows a progress or status line.
	Status func(string)
	// Markdown renders study.md from the summary and each cell's runs
	// (report.StudyMarkdown).
	Markdown func(w io.Writer, s *Summary, results [][]*result.Result)
	// Done, when set, is given the study so far after each run that
	// finished: the summary of the cells with a run (as the final one is
	// made: see soFar), each one's first result and all of its results.
	Done func(s *Summary, firsts []*result.Result, all [][]*result.Result)
}

// Outcome is what a study produced: its summary (nil when no run
// finished), the results of each cell in memory, and study.md's text.
type Outcome struct {
	Summary  *Summary
	Results  [][]*result.Result // per cell of the plan, one per finished repetition
	Markdown string
}

// Run runs a plan's cells, their repetitions interleaved, saving one JSON
// per run into p.Out and then study.json, study.md, study.csv and study.html. It
// stops at the first error or when ctx ends; the outcome holds what
// finished either way.
func Run(ctx context.Context, p Plan, env Env) (*Outcome, error) {
	steps := Schedule(len(p.Cells), p.Repeat)
	cells := append([]Cell(nil), p.Cells...)
	o := &Outcome{Results: make([][]*result.Result, len(cells))}
	files := make([][]string, len(cells))
	started := time.Now()
	var runErr error
	for i := 0; ; i++ {
		if ctx.Err() != nil {
			break
		}
		var st Step
		if p.Next == nil {
			if i >= len(steps) {
				break
			}
			st = steps[i]
		} else {
			c, ok, err := p.Next(cells, o.Results)
			if runErr = err; err != nil || !ok {
				break
			}
			st.Cell = cellIndex(cells, c)
			if st.Cell == len(cells) {
				cells = append(cells, c)
				o.Results = append(o.Results, nil)
				files = append(files, nil)
			}
			st.Rep = len(o.Results[st.Cell])
		}
		if runErr = env.Open(ctx, st.Cell); runErr != nil {
			break
		}
		if p.Next == nil {
			env.Status(fmt.Sprintf("[%d/%d] %s (repetition %d of %d), %s elapsed", i+1, len(steps), cells[st.Cell].Label(), st.Rep+1, p.Repeat, time.Since(started).Round(time.Second)))
		} else {
			env.Status(fmt.Sprintf("[%d] %s (repetition %d), %s elapsed", i+1, cells[st.Cell].Label(), st.Rep+1, time.Since(started).Round(time.Second)))
		}
		res, err := env.Run(ctx, st.Cell)
		if res != nil && !res.Interrupted {
			file := filepath.Join(p.Out, fmt.Sprintf("cell%02d-rep%d.json", st.Cell+1, st.Rep+1))
			if runErr = res.Save(file); runErr != nil {
				break
			}
			o.Results[st.Cell] = append(o.Results[st.Cell], res)
			files[st.Cell] = append(files[st.Cell], file)
			env.Status(fmt.Sprintf("       %.1f transactions/s, invariants %s", res.TxnPerS(), res.Invariants.Status()))
			if env.Done != nil {
				if sum, firsts, ran := soFar(p, cells, o.Results, files); sum != nil {
					env.Done(sum, firsts, ran)
				}
			}
		}
		if err != nil && res == nil && ctx.Err() != nil {
			break // the interrupt ended the cell before its run began (its Start cancelled): interrupted, not a failure
		}
		if runErr = err; runErr != nil {
			break
		}
	}
	sum, firsts, ran := soFar(p, cells, o.Results, files)
	if sum == nil {
		return o, runErr
	}
	o.Summary = sum
	var md strings.Builder
	env.Markdown(&md, sum, ran)
	o.Markdown = md.String()
	b, _ := json.MarshalIndent(sum, "", "  ")
	if err := os.WriteFile(filepath.Join(p.Out, "study.json"), append(b, '\n'), 0o644); err != nil {
		return o, err
	}
	if err := os.WriteFile(filepath.Join(p.Out, "study.md"), []byte(o.Markdown), 0o644); err != nil {
		return o, err
	}
	if err := env.CSV(filepath.Join(p.Out, "study.csv"), sum); err != nil {
		return o, err
	}
	if err := env.HTML(filepath.Join(p.Out, "study.html"), sum, firsts, ran); err != nil {
		return o, err
	}
	if l := sum.DecisionLine(); l != "" {
		env.Status(l)
	}
	env.Status("study written to " + p.Out + " (study.md, study.html, study.json, study.csv, one JSON per run)")
	return o, runErr
}

// soFar is the summary of the study's cells with a run (nil when none has
// one), with its comparisons; each of those cells' first result (for
// study.html) and all of its results.
func soFar(p Plan, cells []Cell, results [][]*result.Result, files [][]string) (*Summary, []*result.Result, [][]*result.Result) {
	order := make([]int, len(cells))
	for i := range order {
		order[i] = i
	}
	vary := p.Vary
	if p.Next != nil {
		order, vary = searchOrder(cells, results)
	}
	sum := &Summary{Format: Format, Workload: p.Workload, Vary: vary, Repeat: p.Repeat, Args: p.Args, Compare: p.Compare}
	var firsts []*result.Result // each cell's first run, for study.html
	var ran [][]*result.Result  // the runs of each cell of sum
	for _, i := range order {
		if c := cells[i]; len(results[i]) > 0 {
			sum.Cells = append(sum.Cells, Summarise(c, results[i], files[i]))
			firsts = append(firsts, results[i][0])
			ran = append(ran, results[i])
		}
	}
	if len(sum.Cells) == 0 {
		return nil, nil, nil
	}
	sum.Comparisons = Compare(sum)
	return sum, firsts, ran
}

// cellIndex is the index of the cell of cells labelled as c's, or
// len(cells) when there is none.
func cellIndex(cells []Cell, c Cell) int {
	for i, x := range cells {
		if x.Label() == c.Label() {
			return i
		}
	}
	return len(cells)
}

// searchOrder orders a search's cells that ran by their first setting's
// value (numerically when every value is a number, else in run order) and
// lists the values, as the Vary of the study's summary.
func searchOrder(cells []Cell, results [][]*result.Result) ([]int, []Vary) {
	var order []int
	nums := map[int]float64{}
	numeric := true
	for i, c := range cells {
		if len(results[i]) == 0 || len(c.Settings) == 0 {
			continue
		}
		order = append(order, i)
		v, err := strconv.ParseFloat(c.Settings[0].Value, 64)
		numeric = numeric && err == nil
		nums[i] = v
	}
	if numeric {
		sort.SliceStable(order, func(a, b int) bool { return nums[order[a]] < nums[order[b]] })
	}
	if len(order) == 0 {
		return order, nil
	}
	v := Vary{Key: cells[order[0]].Settings[0].Key}
	for _, i := range order {
		v.Values = append(v.Values, cells[i].Settings[0].Value)
	}
	return order, []Vary{v}
}

package study

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	o := &Outcome{Results: make([][]*result.Result, len(p.Cells))}
	files := make([][]string, len(p.Cells))
	started := time.Now()
	var runErr error
	for i, st := range steps {
		if ctx.Err() != nil {
			break
		}
		if runErr = env.Open(ctx, st.Cell); runErr != nil {
			break
		}
		env.Status(fmt.Sprintf("[%d/%d] %s (repetition %d of %d), %s elapsed", i+1, len(steps), p.Cells[st.Cell].Label(), st.Rep+1, p.Repeat, time.Since(started).Round(time.Second)))
		res, err := env.Run(ctx, st.Cell)
		if res != nil && !res.Interrupted {
			file := filepath.Join(p.Out, fmt.Sprintf("cell%02d-rep%d.json", st.Cell+1, st.Rep+1))
			if runErr = res.Save(file); runErr != nil {
				break
			}
			o.Results[st.Cell] = append(o.Results[st.Cell], res)
			files[st.Cell] = append(files[st.Cell], file)
			env.Status(fmt.Sprintf("       %.1f transactions/s, invariants %s", res.TxnPerS(), res.Invariants.Status()))
		}
		if runErr = err; runErr != nil {
			break
		}
	}
	sum := &Summary{Format: Format, Workload: p.Workload, Vary: p.Vary, Repeat: p.Repeat, Args: p.Args, Compare: p.Compare}
	var firsts []*result.Result // each cell's first run, for study.html
	var ran [][]*result.Result  // the runs of each cell of sum
	for i, c := range p.Cells {
		if len(o.Results[i]) > 0 {
			sum.Cells = append(sum.Cells, Summarise(c, o.Results[i], files[i]))
			firsts = append(firsts, o.Results[i][0])
			ran = append(ran, o.Results[i])
		}
	}
	if len(sum.Cells) == 0 {
		return o, runErr
	}
	o.Summary = sum
	sum.Comparisons = Compare(sum)
	var md strings.Builder
	Write(&md, sum)
	WriteServerGaps(&md, sum, ran)
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
	env.Status("study written to " + p.Out + " (study.md, study.html, study.json, study.csv, one JSON per run)")
	return o, runErr
}

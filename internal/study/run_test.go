package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// TestRunInterleavesSavesAndReturnsInMemory: Run runs every repetition
// interleaved through the caller's Env, saves one JSON per run and
// study.json/md/csv/html, returns the results in memory and prints nothing
// (its progress goes to Status).
func TestRunInterleavesSavesAndReturnsInMemory(t *testing.T) {
	dir := t.TempDir()
	cells, _ := Expand([]Vary{{Key: "clients", Values: []string{"1", "2"}}})
	var order []int
	var status []string
	env := Env{
		Open: func(context.Context, int) error { return nil },
		Run: func(_ context.Context, c int) (*result.Result, error) {
			order = append(order, c)
			return res(int64(100*(c+1)), 1, 1, true), nil
		},
		HTML: func(path string, _ *Summary, firsts []*result.Result, _ [][]*result.Result) error {
			return os.WriteFile(path, []byte("html"), 0o644)
		},
		CSV: func(path string, _ *Summary) error {
			return os.WriteFile(path, []byte("csv"), 0o644)
		},
		Status: func(s string) { status = append(status, s) },
		Markdown: func(w io.Writer, s *Summary, rs [][]*result.Result) {
			for i, c := range s.Cells {
				fmt.Fprintf(w, "%s: %d runs\n", c.Label, len(rs[i]))
			}
		},
	}
	o, err := Run(context.Background(), Plan{Workload: "w", Cells: cells, Repeat: 2, Out: dir}, env)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(order); got != "[0 1 0 1]" {
		t.Errorf("order %s, want cells interleaved 0 1 0 1", got)
	}
	if len(o.Results) != 2 || len(o.Results[0]) != 2 || len(o.Results[1]) != 2 || o.Summary == nil || len(o.Summary.Cells) != 2 {
		t.Fatalf("outcome %+v: want 2 cells of 2 results in memory", o)
	}
	for _, f := range []string{"cell01-rep1.json", "cell02-rep2.json", "study.json", "study.md", "study.html", "study.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if o.Markdown != "clients=1: 2 runs\nclients=2: 2 runs\n" || len(status) != 10 {
		t.Errorf("markdown %q, status %q", o.Markdown, status)
	}
	if md, err := os.ReadFile(filepath.Join(dir, "study.md")); err != nil || string(md) != o.Markdown {
		t.Errorf("study.md %q (%v), want Env.Markdown's %q", md, err, o.Markdown)
	}
}

// TestRunStopsAtAnErrorAndKeepsWhatFinished: the first error stops the
// study; the runs that finished are summarised and returned.
func TestRunStopsAtAnErrorAndKeepsWhatFinished(t *testing.T) {
	cells, _ := Expand([]Vary{{Key: "clients", Values: []string{"1", "2"}}})
	boom := errors.New("boom")
	env := Env{
		Open: func(context.Context, int) error { return nil },
		Run: func(_ context.Context, c int) (*result.Result, error) {
			if c == 1 {
				return nil, boom
			}
			return res(10, 1, 1, true), nil
		},
		HTML:     func(string, *Summary, []*result.Result, [][]*result.Result) error { return nil },
		CSV:      func(string, *Summary) error { return nil },
		Status:   func(string) {},
		Markdown: func(io.Writer, *Summary, [][]*result.Result) {},
	}
	o, err := Run(context.Background(), Plan{Workload: "w", Cells: cells, Repeat: 2, Out: t.TempDir()}, env)
	if !errors.Is(err, boom) || o.Summary == nil || len(o.Summary.Cells) != 1 || len(o.Results[0]) != 1 {
		t.Fatalf("err %v, outcome %+v: want boom and cell 1's one run", err, o)
	}
}

// TestRunInterruptedBeforeACellsRun: an interrupt that lands while a
// cell starts (its workload's Start cancelled, no result) ends the study
// as interrupted, with what finished, not with that cell's error: the
// capacity search said "cell clients=2: counting events before the run:
// context canceled" and exited 1 (TestCapacityInterruptedSaysSo, under load).
func TestRunInterruptedBeforeACellsRun(t *testing.T) {
	cells, _ := Expand([]Vary{{Key: "clients", Values: []string{"1", "2"}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := Env{
		Open: func(context.Context, int) error { return nil },
		Run: func(ctx context.Context, c int) (*result.Result, error) {
			if c == 1 {
				cancel() // Ctrl-C as the cell starts
				return nil, fmt.Errorf("counting events before the run: %w", ctx.Err())
			}
			return res(10, 1, 1, true), nil
		},
		HTML:     func(string, *Summary, []*result.Result, [][]*result.Result) error { return nil },
		CSV:      func(string, *Summary) error { return nil },
		Status:   func(string) {},
		Markdown: func(io.Writer, *Summary, [][]*result.Result) {},
	}
	o, err := Run(ctx, Plan{Workload: "w", Cells: cells, Repeat: 1, Out: t.TempDir()}, env)
	if err != nil || o.Summary == nil || len(o.Summary.Cells) != 1 {
		t.Fatalf("err %v, outcome %+v: want no error (interrupted) and cell 1's run", err, o)
	}
}

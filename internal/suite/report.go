package suite

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

// Format identifies a suite report (suite.json).
const Format = "txnbench-suite/1"

// Report is one run of a suite's tier: what ran and, per scenario, where
// its full result is and its summary row. It is saved as suite.json beside
// suite.md, one result JSON per run scenario and one study directory per
// study scenario.
type Report struct {
	Format string `json:"format"`
	Name   string `json:"name"` // the suite's name
	File   string `json:"file"` // the suite file as given
	// Tier is the tiers run, in the order run, joined by commas.
	Tier      string      `json:"tier"`
	Tool      result.Tool `json:"txnbench"`
	Args      []string    `json:"args"` // the command line, passwords masked
	Started   time.Time   `json:"started"`
	Ended     time.Time   `json:"ended"`
	Scenarios []Scenario  `json:"scenarios"`

	// Machine is where txnbench ran.
	Machine result.Machine `json:"machine"`
}

// Scenario is one scenario's outcome.
type Scenario struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"` // KindRun or KindStudy
	Workload string   `json:"workload"`
	Tiers    []string `json:"tiers"`
	// Tier is the tier it ran for: the first of the tiers run that it
	// is in.
	Tier string   `json:"tier,omitempty"`
	Args []string `json:"args"` // the run or study flags it ran with, passwords masked

	// Settings are every run or study setting in effect (defaults
	// included, outputs left out), key to value, passwords masked; a
	// varied setting's value is its values joined by commas.
	Settings map[string]string `json:"settings,omitempty"`
	// Server is the database measured, e.g. "PostgreSQL 15.14".
	Server string `json:"server,omitempty"`

	// Result is the run's result file, Study its study.json, relative to
	// the directory of suite.json.
	Result  string  `json:"result,omitempty"`
	Study   string  `json:"study,omitempty"`
	Summary Summary `json:"summary"`
	// Error is why the scenario did not finish, "" when it did.
	Error string `json:"error,omitempty"`
}

// The kinds of scenario.
const (
	KindRun   = "run"
	KindStudy = "study"
)

// Summary is a scenario's row of the summary table. For a run (see
// RunSummary): its transactions (ops of kind "") over the measured
// window, latencies from their merged histogram. For a study (see
// StudySummary): Ops and DurationS are the sums over cells of each cell's
// median across repetitions, OpsPerS and TxnPerS are Ops and Txns over DurationS, latencies are
// the medians of the slowest cell (highest median p95), Clients the most
// of any cell, Failures the sum over every run, InvariantsOK true only if
// every run's check passed.
type Summary struct {
	// Ops are the transactions that succeeded or, when Unit names the
	// cycles the workload counts ("workflows"), the cycles; OpsPerS, the
	// latencies and Failures are of the same. Txns and TxnPerS are the
	// transactions either way.
	Ops          int64   `json:"ops"`
	Unit         string  `json:"unit,omitempty"`
	Txns         int64   `json:"txns"`
	Clients      int     `json:"clients"`
	DurationS    float64 `json:"duration_s"` // measured
	OpsPerS      float64 `json:"ops_per_s"`
	TxnPerS      float64 `json:"txn_per_s"`
	MeanMS       float64 `json:"mean_ms"`
	P90MS        float64 `json:"p90_ms"`
	P95MS        float64 `json:"p95_ms"`
	P99MS        float64 `json:"p99_ms"`
	MaxMS        float64 `json:"max_ms"`
	Failures     int64   `json:"failures"` // failed transactions
	InvariantsOK bool    `json:"invariants_ok"`
	// InvariantsNotChecked says why a run verified nothing (InvariantsOK
	// is false then, but nothing was found broken either).
	InvariantsNotChecked string `json:"invariants_not_checked,omitempty"`
	// Phases are the workload's timed phases (ops of result.KindPhase),
	// in the order of its ops; for a study the slowest cell's medians.
	Phases []Phase `json:"phases,omitempty"`
	// Database is the change of the result.DeltaCounters over the
	// measured window (a study's: summed over cells, each the median of
	// its repetitions); absent without database telemetry.
	Database map[string]int64 `json:"database,omitempty"`
	// Commits are the server's commits beside the clients' transactions
	// they cover (result.Commits; a study's: summed over cells, each that
	// of the repetition with the median commits).
	Commits *result.Commits `json:"commits,omitempty"`
	// TopWait is the wait event the run's sessions were seen in most (a
	// study's: over all its runs), TopWaitShare its share of the
	// samples (0..1); "" when nothing was sampled.
	TopWait      string  `json:"top_wait,omitempty"`
	TopWaitShare float64 `json:"top_wait_share,omitempty"`
}

// Phase is one timed phase of a workload's ops (start, signal to
// completion, ...): how many completed in the window and their latencies.
type Phase struct {
	Name   string  `json:"name"`
	Count  int64   `json:"count"`
	MeanMS float64 `json:"mean_ms"`
	P90MS  float64 `json:"p90_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Invariants is the check the summary stands for, without its items: its
// Status and Violated are what reports and exit statuses use.
func (s Summary) Invariants() *result.Check {
	return &result.Check{OK: s.InvariantsOK, NotChecked: s.InvariantsNotChecked}
}

// Save writes r as indented JSON to path.
func (r *Report) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the suite report: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving the suite report: %w", err)
	}
	return nil
}

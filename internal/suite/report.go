package suite

import (
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
	Format    string      `json:"format"`
	Name      string      `json:"name"` // the suite's name
	File      string      `json:"file"` // the suite file as given
	Tier      string      `json:"tier"`
	Tool      result.Tool `json:"txnbench"`
	Args      []string    `json:"args"` // the command line, passwords masked
	Started   time.Time   `json:"started"`
	Ended     time.Time   `json:"ended"`
	Scenarios []Scenario  `json:"scenarios"`
}

// Scenario is one scenario's outcome.
type Scenario struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"` // KindRun or KindStudy
	Workload string   `json:"workload"`
	Tiers    []string `json:"tiers"`
	Args     []string `json:"args"` // the run or study flags it ran with, passwords masked
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

// Summary is a scenario's row of the summary table: for a study, the
// totals of all its runs' transactions over its cells' medians.
type Summary struct {
	Ops          int64   `json:"ops"` // transactions that succeeded
	Clients      int     `json:"clients"`
	DurationS    float64 `json:"duration_s"` // measured
	TxnPerS      float64 `json:"txn_per_s"`
	MeanMS       float64 `json:"mean_ms"`
	P95MS        float64 `json:"p95_ms"`
	P99MS        float64 `json:"p99_ms"`
	MaxMS        float64 `json:"max_ms"`
	Failures     int64   `json:"failures"` // failed transactions
	InvariantsOK bool    `json:"invariants_ok"`
}

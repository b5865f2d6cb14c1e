package changepoint

import "time"

// History is a series of saved measurements (results, studies or suites)
// in order, and each metric's values across them with the changes found.
type History struct {
	Kind   string   `json:"kind"` // result, study or suite
	Points []Point  `json:"points"`
	Series []Series `json:"series"`
	// P and MinChangePct are the significance level and the smallest
	// change (of the medians, in %) a named change has.
	P            float64 `json:"p"`
	MinChangePct float64 `json:"min_change_pct"`
	// Skipped are metrics not in every point with enough samples: not
	// analysed.
	Skipped []string `json:"skipped,omitempty"`
}

// Point is one saved measurement of the history.
type Point struct {
	Label string    `json:"label"`
	File  string    `json:"file"`
	Time  time.Time `json:"time"`
}

// Series is one metric across the points.
type Series struct {
	// Name is the scenario (or cell) and metric: "tpcb-like: txn/s";
	// Unit how its values are printed (rate, ms, ...).
	Name         string    `json:"name"`
	Unit         string    `json:"unit"`
	HigherBetter bool      `json:"higher_is_better"`
	Values       []float64 `json:"values"`
	Changes      []Change  `json:"changes,omitempty"`
}

// Worse reports whether c moved s the wrong way.
func (s Series) Worse(c Change) bool { return (c.After > c.Before) != s.HigherBetter }

// Changed counts the changes of every series and the series with one.
func (h *History) Changed() (changes, series int) {
	for _, s := range h.Series {
		changes += len(s.Changes)
		if len(s.Changes) > 0 {
			series++
		}
	}
	return changes, series
}

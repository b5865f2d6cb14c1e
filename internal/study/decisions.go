package study

import (
	"fmt"

	"github.com/txnbench/txnbench/internal/stats"
)

// Decisions counts the verdicts of a study's axis tables: the changes
// decided (better or worse), those within the repetitions' noise (~) and
// those whose noise is unknown (?, a cell that ran once). Errors (counts)
// carry no verdict and are not counted.
type Decisions struct {
	Decided int `json:"decided"`
	Same    int `json:"within_noise"`
	Unknown int `json:"noise_unknown"`
}

// decisions counts c's axis tables' verdicts.
func decisions(c *Comparisons) Decisions {
	var d Decisions
	for _, t := range c.Axes {
		for _, r := range t.Rows {
			for _, ps := range r.Stats {
				switch {
				case ps == nil:
				case ps.Verdict == stats.Unknown:
					d.Unknown++
				case ps.Verdict == stats.Same:
					d.Same++
				default:
					d.Decided++
				}
			}
		}
	}
	return d
}

// DecisionLine is the one line a study says of its verdicts: that none
// could be decided and how many repetitions a verdict needs, or how many
// were decided and how many stayed within the noise; "" when it compared
// nothing. It counts the comparisons Compare makes of s, which the
// reports print (a study.json saved before Decisions has them too).
func (s *Summary) DecisionLine() string {
	c := Compare(s)
	if c == nil {
		return ""
	}
	d := c.Decisions
	all := d.Decided + d.Same + d.Unknown
	switch {
	case all == 0:
		return ""
	case d.Unknown == all && s.Repeat <= 1:
		return "No change could be decided: every cell ran once, so the machine's noise is unknown (?); --repeat 3 gives each change a 95% interval and a verdict (docs/studies.md)."
	case d.Unknown == all:
		return "No change could be decided: this study.json does not record its repetitions' values, so their noise is unknown (?)."
	}
	line := fmt.Sprintf("%d of %d changes decided (better or worse)", d.Decided, all)
	if d.Same > 0 {
		line += fmt.Sprintf(", %d within the repetitions' noise (~)", d.Same)
	}
	if d.Unknown > 0 {
		line += fmt.Sprintf(", %d of unknown noise (?: a cell ran once)", d.Unknown)
	}
	if d.Decided == all {
		return line + "."
	}
	if s.Repeat <= 2 {
		return line + fmt.Sprintf(": %d repetitions a cell decide only large, agreeing differences; --repeat 3 or more to compare (docs/studies.md).", s.Repeat)
	}
	return line + fmt.Sprintf(": ~ is a difference %d repetitions cannot tell from their noise, not proof of none; more repetitions narrow its interval (docs/studies.md).", s.Repeat)
}

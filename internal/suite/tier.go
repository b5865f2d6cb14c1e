package suite

import "strings"

// Interrupted is a Scenario's Error when Ctrl-C stopped it.
const Interrupted = "interrupted"

// TierTitle is "tier smoke" or "tiers smoke, nightly".
func (r *Report) TierTitle() string {
	tiers := strings.Split(r.Tier, ",")
	if len(tiers) == 1 {
		return "tier " + r.Tier
	}
	return "tiers " + strings.Join(tiers, ", ")
}

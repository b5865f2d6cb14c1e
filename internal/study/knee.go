package study

import (
	"fmt"
	"math"

	"github.com/txnbench/txnbench/internal/stats"
)

// The verdicts of a rung's gain over the rung before (LadderStep.Verdict).
const (
	// RungGrows: the gain's 95% interval lies above KneeGain.
	RungGrows = "grows"
	// RungStops: the interval lies below KneeGain: throughput has
	// stopped growing (the first such rung is the knee).
	RungStops = "stops"
	// RungSame (~): the interval holds KneeGain; the repetitions cannot
	// tell whether the rung still grows.
	RungSame = stats.Same
	// RungUnknown (?): fewer than two paired repetitions.
	RungUnknown = stats.Unknown
)

// rungGain sets st's gain interval and verdict from the paired gains of
// its repetitions over prev's (the same repetition of the rung before:
// they ran in the same round, so they share the machine's drift): the
// mean of their logarithms with Student's t interval, at stats.Level.
func rungGain(st *LadderStep, prev []RepStats) {
	var logs []float64
	for r := 0; r < min(len(prev), len(st.reps)); r++ {
		if prev[r].TxnPerS > 0 && st.reps[r].TxnPerS > 0 {
			logs = append(logs, math.Log(st.reps[r].TxnPerS/prev[r].TxnPerS))
		}
	}
	st.Verdict = RungUnknown
	if len(logs) < 2 {
		return
	}
	n := float64(len(logs))
	var m, v float64
	for _, x := range logs {
		m += x / n
	}
	for _, x := range logs {
		v += (x - m) * (x - m) / (n - 1)
	}
	half := stats.TQuantile((1+stats.Level)/2, n-1) * math.Sqrt(v/n)
	st.Gain, st.GainLow, st.GainHigh = 100*(math.Exp(m)-1), 100*(math.Exp(m-half)-1), 100*(math.Exp(m+half)-1)
	switch {
	case st.GainLow > KneeGain:
		st.Verdict = RungGrows
	case st.GainHigh < KneeGain:
		st.Verdict = RungStops
	default:
		st.Verdict = RungSame
	}
}

// GainText is the rung's gain with its interval and verdict, as the
// ladder's table prints it: "+2% (+0% to +3%): stops", "~ (+1% to
// +12%)", "?"; "-" on the first rung.
func (st LadderStep) GainText() string {
	switch st.Verdict {
	case "":
		return "-"
	case RungUnknown:
		return RungUnknown
	case RungSame:
		return fmt.Sprintf("~ (%+.0f%% to %+.0f%%)", st.GainLow, st.GainHigh)
	}
	return fmt.Sprintf("%+.0f%% (%+.0f%% to %+.0f%%): %s", st.Gain, st.GainLow, st.GainHigh, st.Verdict)
}

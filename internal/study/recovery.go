package study

import (
	"strconv"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
)

// FaultRecovery is one injected fault of a cell (--fault) and what
// followed it: medians across the cell's repetitions.
type FaultRecovery struct {
	Fault string `json:"fault"` // e.g. "kill-pooler:2s at 30.0 s" (the first repetition's time)
	// FirstOKS and ThroughputS are the medians over the repetitions in
	// which an op succeeded again, or throughput came back to 90%; nil
	// when it never did.
	FirstOKS    *float64 `json:"first_ok_s"`
	ThroughputS *float64 `json:"throughput_s"`
	Errors      float64  `json:"errors"`               // in the outage
	Reconnects  *float64 `json:"reconnects,omitempty"` // nil when not counted
	// Runs is how many repetitions injected it; NoFirstOK and
	// NoThroughput how many of them did not recover so.
	Runs         int `json:"runs"`
	NoFirstOK    int `json:"no_first_ok,omitempty"`
	NoThroughput int `json:"no_throughput,omitempty"`
}

// faultRecoveries are the injected faults of a cell's repetitions (each
// ran the same schedule), in the order of the schedule.
func faultRecoveries(rs []*result.Result) []FaultRecovery {
	var out []FaultRecovery
	for k := 0; ; k++ {
		var fr FaultRecovery
		var first, tput, errs, recs []float64
		for _, r := range rs {
			f := nthInjected(r, k)
			if f == nil || f.Recovery == nil {
				continue
			}
			fr.Fault = f.Kind
			if f.Arg != "" {
				fr.Fault += ":" + f.Arg
			}
			fr.Fault += " at " + strconv.FormatFloat(f.AtS, 'f', 1, 64) + " s"
			fr.Runs++
			rc := f.Recovery
			if rc.FirstOKS != nil {
				first = append(first, *rc.FirstOKS)
			} else {
				fr.NoFirstOK++
			}
			if rc.ThroughputS != nil {
				tput = append(tput, *rc.ThroughputS)
			} else {
				fr.NoThroughput++
			}
			var n int64
			for _, e := range rc.Errors {
				n += e
			}
			errs = append(errs, float64(n))
			if rc.Reconnects != nil {
				recs = append(recs, float64(*rc.Reconnects))
			}
		}
		if fr.Runs == 0 {
			return out
		}
		fr.FirstOKS, fr.ThroughputS, fr.Reconnects = medianPtr(first), medianPtr(tput), medianPtr(recs)
		fr.Errors = metrics.Median(errs)
		out = append(out, fr)
	}
}

// nthInjected is r's k-th injected fault, or nil.
func nthInjected(r *result.Result, k int) *result.Fault {
	for i := range r.Faults {
		if r.Faults[i].Injected {
			if k == 0 {
				return &r.Faults[i]
			}
			k--
		}
	}
	return nil
}

// medianPtr is the median of vs, nil when there are none.
func medianPtr(vs []float64) *float64 {
	if len(vs) == 0 {
		return nil
	}
	m := metrics.Median(vs)
	return &m
}

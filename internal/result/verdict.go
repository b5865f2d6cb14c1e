package result

import "sort"

// Check is the run's invariant check; a run without one (nil Invariants)
// verified nothing.
func (r *Result) Check() Check {
	if r.Invariants == nil {
		return Check{NotChecked: "no check ran"}
	}
	return *r.Invariants
}

// Transactions counts the transactions (ops of KindTxn) that succeeded
// and that failed in the measured window.
func (r *Result) Transactions() (ok, failed int64) {
	for _, o := range r.Ops {
		if o.Kind.IsTxn() {
			ok += o.Count
			failed += o.ErrorCount()
		}
	}
	return ok, failed
}

// TxnRetries is the retries of the transactions in the measured window.
func (r *Result) TxnRetries() (n int64) {
	for _, o := range r.Ops {
		if o.Kind.IsTxn() {
			n += o.Retries
		}
	}
	return n
}

// TxnPerS is the transactions that succeeded per second of the measured
// window; 0 without a window.
func (r *Result) TxnPerS() float64 {
	ok, _ := r.Transactions()
	return perS(ok, r.MeasuredS)
}

// TxnPerS is the transactions that succeeded per second of the interval;
// 0 for an empty interval.
func (iv Interval) TxnPerS() float64 {
	var n int64
	for _, o := range iv.Ops {
		if o.Kind.IsTxn() {
			n += o.Count
		}
	}
	return perS(n, iv.LengthS)
}

// perS is n per second of s seconds; 0 when s is not positive.
func perS(n int64, s float64) float64 {
	if s <= 0 {
		return 0
	}
	return float64(n) / s
}

// NeverSucceeded is the first transaction op that failed every time it
// ran (nil when there is none), with the class it failed with most and
// that class's first message.
func (r *Result) NeverSucceeded() (o *Op, class, sample string) {
	for i := range r.Ops {
		o := &r.Ops[i]
		if !o.Kind.IsTxn() || o.Count > 0 || o.ErrorCount() == 0 {
			continue
		}
		classes := make([]string, 0, len(o.Errors))
		for c := range o.Errors {
			classes = append(classes, c)
		}
		sort.Slice(classes, func(i, j int) bool {
			a, b := o.Errors[classes[i]], o.Errors[classes[j]]
			return a > b || a == b && classes[i] < classes[j]
		})
		return o, classes[0], o.ErrorSamples[classes[0]]
	}
	return nil, "", ""
}

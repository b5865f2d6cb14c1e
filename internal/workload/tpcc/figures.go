package tpcc

import (
	"fmt"
	"strings"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/workload"
)

// maxTpmCPerWarehouse is the most New-Orders per minute one warehouse's
// ten terminals can enter with the specification's keying and think
// times: the efficiency's yardstick.
const maxTpmCPerWarehouse = 12.86

// efficiency is tpmC against the most the active warehouses' terminals
// can enter; only the specification's keying and think times bound it,
// so without them (--wait=false) it says so instead of a percentage.
func (w *Workload) efficiency(tpmC float64) string {
	if !w.wait {
		return "efficiency not measured: it needs the keying and think times (--wait=false ran without them)"
	}
	active := w.activeWarehouses()
	return fmt.Sprintf("efficiency %.1f%% of %.2f x %d warehouses", 100*tpmC/(maxTpmCPerWarehouse*float64(active)), maxTpmCPerWarehouse, active)
}

var _ workload.Figurer = (*Workload)(nil)

// Figures are TPC-C's own figures of the run (clause 5.4): tpmC, the
// New-Orders completed per minute of the window (the rolled-back ones
// included, being completed business transactions); NOPM, the New-Orders
// committed; tpmTotal, every transaction; the efficiency against 12.86 per
// active warehouse; and each transaction's 90th-percentile response time
// against its limit (clause 5.2.5.3).
func (w *Workload) Figures(r *result.Result) []string {
	if r.MeasuredS <= 0 {
		return nil
	}
	minutes := r.MeasuredS / 60
	var total int64
	for _, name := range opNames {
		if o := r.Op(name); o != nil {
			total += o.Count
		}
	}
	var newOrders int64
	if o := r.Op(opNewOrder); o != nil {
		newOrders = o.Count
	}
	tpmC := float64(newOrders) / minutes
	// The window's committed share, as in the whole run.
	committed, rolled := w.newOrders.Load(), w.rollbacks.Load()
	nopm := tpmC
	if committed+rolled > 0 {
		nopm = tpmC * float64(committed) / float64(committed+rolled)
	}
	lines := []string{fmt.Sprintf("tpmC       %.1f New-Orders per minute (%d rolled back on an unused item included), NOPM %.1f, tpmTotal %.1f, %s",
		tpmC, rolled, nopm, float64(total)/minutes, w.efficiency(tpmC))}
	if newOrders == 0 && w.wait {
		lines = append(lines, fmt.Sprintf("           no New-Order completed in the %s window: each terminal keys %s before each New-Order and thinks %s on average after it; give a --duration of minutes, or --wait=false to run without them",
			time.Duration(r.MeasuredS*float64(time.Second)).Round(time.Second/10), keying[0], thinkMean[0]))
	}
	var parts, unrun []string
	pass := true
	for i, name := range opNames {
		o := r.Op(name)
		if o == nil || o.Count == 0 {
			parts, unrun = append(parts, name+" not run"), append(unrun, name)
			continue
		}
		p90 := time.Duration(o.P90 * float64(time.Millisecond))
		verdict := "pass"
		if p90 > limit90[i] {
			verdict, pass = "FAIL", false
		}
		parts = append(parts, fmt.Sprintf("%s %s (limit %s) %s", name, p90.Round(time.Millisecond/10), limit90[i], verdict))
	}
	verdict := "all within the limits"
	switch {
	case !pass:
		verdict = "a limit is EXCEEDED"
	case len(unrun) == len(opNames):
		verdict = "none judged: no transaction completed"
	case len(unrun) > 0:
		verdict = fmt.Sprintf("those run within the limits; %s not judged (none completed)", strings.Join(unrun, ", "))
	}
	lines = append(lines, "p90 limits "+strings.Join(parts, ", ")+": "+verdict)
	return lines
}

package report

import (
	"fmt"
	"strconv"

	"github.com/txnbench/txnbench/internal/result"
)

// cpuTable is the CPU of each part of the run (the server, its
// PgBouncers, HAProxy, the network proxies, the clients) and the whole
// machine's over the span they were measured in: what `limited by:`
// decided from. None when the run did not measure them.
func cpuTable(r *result.Result) (table, bool) {
	u := r.CPU
	if u == nil || u.SpanS <= 0 {
		return table{}, false
	}
	t := table{Title: "CPU of each part", Columns: []string{"part", "processes", "CPU (s)", "cores busy", "busiest process (cores)"}}
	for _, p := range u.Parts {
		procs, busiest := "", ""
		if p.Processes > 0 {
			procs = strconv.Itoa(p.Processes)
		}
		if p.BusiestCores > 0 {
			busiest = fixed(p.BusiestCores, 2)
		}
		t.Rows = append(t.Rows, []string{p.Name, procs, fixed(p.CPUS, 2), fixed(p.Cores(u.SpanS), 2), busiest})
	}
	if u.MachineBusy > 0 {
		t.Note = fmt.Sprintf("the machine: %.0f%% busy of its %d CPUs over %.1f s", 100*u.MachineBusy, u.Cores, u.SpanS)
	}
	return t, true
}

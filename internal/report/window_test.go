package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestWindowNotes: ops completed after the window, unfinished ops and a
// stall are said under the table and in the HTML report; a run without
// them adds nothing.
func TestWindowNotes(t *testing.T) {
	r := fixedResult()
	var quiet bytes.Buffer
	Summary(&quiet, r)
	if strings.Contains(quiet.String(), "unfinished") || strings.Contains(quiet.String(), "after the window") {
		t.Errorf("notes in a run without them:\n%s", quiet.String())
	}
	for i := range r.Ops {
		switch r.Ops[i].Name {
		case "add":
			r.Ops[i].AfterWindow = 3
			r.Ops[i].AfterWindowRetries = 2
			r.Ops[i].AfterWindowErrors = map[string]int64{"deadlock": 1, "serialization": 4}
			r.Ops[i].Unfinished, r.Ops[i].UnfinishedMaxMS = 16, 10012.5
		case result.CycleOp:
			r.Ops[i].Unfinished, r.Ops[i].UnfinishedMaxMS = 16, 10250
		}
	}
	r.Stalled = &result.Stall{Clients: 16, SinceS: 12.34}
	plain.Contains(t, "summary", summaryOf(r),
		"completed after the window, or earlier in a cycle that ended after it (in the latencies, not in ops or ops/s): add 3\n",
		"unfinished when the run ended (in no column): cycle 16 (running 10,250.00 ms or more), add 16 (running 10,012.50 ms or more)\n",
		"retried or failed after the window (in no column): add 2 retries, 5 errors (deadlock 1, serialization 4)\n",
		"stalled: 16 clients waiting since 12.3 s\n",
	)
	var h bytes.Buffer
	if err := HTML(&h, r); err != nil {
		t.Fatal(err)
	}
	plain.Contains(t, "HTML", h.String(), "stalled: 16 clients waiting since 12.3 s", "unfinished when the run ended")
}

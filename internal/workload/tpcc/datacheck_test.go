package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

// TestCheckDataSaysWhatItCannotEvaluate: on TPC-C tables without
// new_order and with a history without h_amount, CheckData evaluates the
// conditions that read neither (they hold) and names, for each of the
// others, what is missing.
func TestCheckDataSaysWhatItCannotEvaluate(t *testing.T) {
	tg := testutil.SQLite(t)
	c := testutil.Session(t, tg)
	initWorkload(t, tg, c, true, small...)
	ctx := context.Background()
	for _, q := range []string{"DROP TABLE new_order", "ALTER TABLE history DROP COLUMN h_amount"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	ch, err := (&Workload{}).CheckData(ctx, c, tg.Dialect().Caps)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // by condition number: the missing part named, "" when evaluated
		"3.3.2.2": "there is no table new_order", "3.3.2.3": "there is no table new_order", "3.3.2.5": "there is no table new_order",
		"3.3.2.8": "history has no column h_amount", "3.3.2.9": "history has no column h_amount", "3.3.2.10": "history has no column h_amount",
		"3.3.2.11": "there is no table new_order",
	}
	if len(ch.Items) != len(conditions) || !ch.OK {
		t.Fatalf("%d items, OK %v, want %d holding: %+v", len(ch.Items), ch.OK, len(conditions), ch)
	}
	for _, it := range ch.Items {
		num, _, _ := strings.Cut(it.Name, " ")
		missing, ok := want[num]
		switch {
		case ok && !strings.HasPrefix(it.Detail, "not evaluated: "+missing):
			t.Errorf("%s: %q, want it not evaluated naming %q", it.Name, it.Detail, missing)
		case !ok && (strings.Contains(it.Detail, "not evaluated") || !strings.HasPrefix(it.Detail, "0 ")):
			t.Errorf("%s: %q, want it evaluated and holding", it.Name, it.Detail)
		}
	}
}
